'use strict';
// The gateway's pure parts: the frame encoding (flat vectors, soft triangles only when the
// topology changed, identity for an all-zero quaternion), the scene's shapes (mesh assets as
// the hulls and meshes the page already draws), the asset cache, and the static file routes
// (nothing outside public/ and three's folders is reachable). A viewer session runs against
// stand-in gRPC clients to show that assets are fetched once for all viewers, and that its
// ray queries are checked, share one stream and never queue more than one behind the one
// in flight.

const path = require('path');
const { EventEmitter } = require('events');
const test = require('node:test');
const assert = require('node:assert/strict');
const { FrameEncoder, encodeSceneBody, encodeDrives, meshAssetNames } = require('../gateway/frame_codec');
const { AssetCache } = require('../gateway/asset_cache');
const { ViewerSession } = require('../gateway/viewer_session');
const { makeRoutes, resolveFile } = require('../gateway/static_files');
const { loadLigaturePackage } = require('../gateway/grpc_clients');

const v = (x, y, z) => ({ x, y, z });

function body(id, extra = {}) {
  return {
    id, pose: { position: v(1, 2, 3), orientation: { x: 0, y: 0, z: 0, w: 0 } },
    rod_points: [], soft_vertices: [], soft_triangles: [], topology_version: 0,
    strand_points: [], strand_parents: [], ...extra,
  };
}

function frame(bodies) {
  return { world: 'worlds/w', tick: 7, sim_time: 0.1, step_ms: 0.2, solver: { contacts: 3 },
           cuts: [], tools: [], bodies };
}

test('rigid poses: flat position, all-zero quaternion read as identity', () => {
  const out = new FrameEncoder().encode(frame([body('a')]));
  assert.equal(out.tick, 7);
  assert.deepEqual(out.bodies[0], { id: 'a', p: [1, 2, 3], q: [0, 0, 0, 1] });
});

test('sleepers are marked, and counted from the solver figures', () => {
  const f = frame([body('a', { sleeping: true }), body('b')]);
  f.solver.sleeping_bodies = 1;
  const out = new FrameEncoder().encode(f);
  assert.equal(out.bodies[0].asleep, true);
  assert.equal(out.bodies[1].asleep, undefined);
  assert.equal(out.solver.asleep, 1);
});

test('soft triangles are sent on the first frame and again only after a topology change', () => {
  const encoder = new FrameEncoder();
  const soft = (version, triangles) => body('s', {
    soft_vertices: [v(0, 0, 0), v(1, 0, 0), v(0, 1, 0), v(0, 0, 1)],
    soft_triangles: triangles, topology_version: version });
  const first = encoder.encode(frame([soft(0, [0, 1, 2])])).bodies[0].soft;
  assert.deepEqual(first, { v: [0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1], topology: 0, t: [0, 1, 2] });
  const same = encoder.encode(frame([soft(0, [0, 1, 2])])).bodies[0].soft;
  assert.equal(same.t, undefined);
  const cut = encoder.encode(frame([soft(1, [0, 1, 3, 0, 2, 3])])).bodies[0].soft;
  assert.deepEqual(cut.t, [0, 1, 3, 0, 2, 3]);
  encoder.reset();
  assert.deepEqual(encoder.encode(frame([soft(1, [0, 1, 3])])).bodies[0].soft.t, [0, 1, 3]);
});

test('rods and strands become flat point lists, strands with their parents', () => {
  const out = new FrameEncoder().encode(frame([
    body('r', { rod_points: [v(0, 1, 0), v(0, 0.5, 0)] }),
    body('h', { strand_points: [v(0, 0, 0), v(0, -1, 0), v(1, -1, 0)], strand_parents: [-1, 0, 0] }),
  ]));
  assert.deepEqual(out.bodies[0].rod, [0, 1, 0, 0, 0.5, 0]);
  assert.deepEqual(out.bodies[1].strand, { p: [0, 0, 0, 0, -1, 0, 1, -1, 0], parents: [-1, 0, 0] });
});

test('scene bodies: compound children keep their shapes and poses; rods their radius', () => {
  const compound = encodeSceneBody({
    id: 'stool', kind: 'BODY_KIND_DYNAMIC', pose: null, rod: null, soft: null, strand: null,
    shape: { kind: 'compound', compound: { children: [
      { shape: { kind: 'box', box: { half_extents: v(1, 2, 3) } }, pose: { position: v(0, 1, 0) } },
      { shape: { kind: 'capsule', capsule: { radius: 0.1, half_length: 0.5 } }, pose: null },
    ] } },
  });
  assert.equal(compound.type, 'rigid');
  assert.deepEqual(compound.shape.children[0], {
    shape: { kind: 'box', halfExtents: [1, 2, 3] }, p: [0, 1, 0], q: [0, 0, 0, 1] });
  assert.deepEqual(compound.shape.children[1].shape, { kind: 'capsule', radius: 0.1, halfLength: 0.5 });
  const hull = encodeSceneBody({
    id: 'mug', kind: 'BODY_KIND_DYNAMIC', pose: null,
    shape: { kind: 'hull', hull: { points: [v(0, 0, 0), v(1, 0, 0), v(0, 1, 0), v(0, 0, 1)] } },
  });
  assert.deepEqual(hull.shape, { kind: 'hull', points: [0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1] });
  const mesh = encodeSceneBody({
    id: 'floor', kind: 'BODY_KIND_STATIC', pose: null,
    shape: { kind: 'mesh', mesh: { vertices: [v(0, 0, 0), v(1, 0, 0), v(0, 0, 1)], indices: [0, 2, 1] } },
  });
  assert.deepEqual(mesh.shape, { kind: 'mesh', vertices: [0, 0, 0, 1, 0, 0, 0, 0, 1], indices: [0, 2, 1] });
  // Two rows of three points, 1 m apart, centred on the origin; the first cell is a hole, so
  // only the second cell's two triangles (its diagonal from (0, 1) to (1, 2)) are drawn.
  const terrain = encodeSceneBody({
    id: 'terrain', kind: 'BODY_KIND_STATIC', pose: null,
    shape: { kind: 'height_field', height_field: {
      rows: 2, columns: 3, spacing_x: 1, spacing_z: 1, heights: [0, 1, 2, 3, 4, 5], holes: [0] } },
  });
  assert.deepEqual(terrain.shape, {
    kind: 'mesh',
    vertices: [-1, 0, -0.5, 0, 1, -0.5, 1, 2, -0.5, -1, 3, 0.5, 0, 4, 0.5, 1, 5, 0.5],
    indices: [1, 4, 5, 1, 5, 2],
  });
  const rod = encodeSceneBody({ id: 'r', kind: 'BODY_KIND_DYNAMIC', rod: { material: { radius: 0 } } });
  assert.equal(rod.type, 'rod');
  assert.equal(rod.radius, 0.005, 'the API default when unset');
});

test('static routes stay inside their folders', () => {
  const web = path.resolve(__dirname, '..');
  const routes = makeRoutes(web);
  assert.equal(resolveFile(routes, '/'), path.join(web, 'public', 'index.html'));
  assert.equal(resolveFile(routes, '/vendor/three/build/three.module.js'),
               path.join(web, 'node_modules', 'three', 'build', 'three.module.js'));
  assert.equal(resolveFile(routes, '/vendor/three/examples/jsm/webxr/VRButton.js'),
               path.join(web, 'node_modules', 'three', 'examples', 'jsm', 'webxr', 'VRButton.js'));
  for (const evil of ['/../package.json', '/%2e%2e/package.json', '/vendor/three/build/../package.json',
                      '/js/%00', '/%E0%A4%A']) {
    const file = resolveFile(routes, evil);
    assert.ok(file === null || file.startsWith(path.join(web, 'public') + path.sep) ||
              file.startsWith(path.join(web, 'node_modules', 'three', 'build') + path.sep), `${evil} -> ${file}`);
  }
});

test('the protos load from proto/ at run time with every service the gateway uses', () => {
  const pkg = loadLigaturePackage();
  for (const service of ['WorldService', 'SessionService', 'SceneService', 'AssetService',
                         'QueryService']) {
    assert.equal(typeof pkg[service], 'function', service);
  }
  assert.ok(pkg.SessionService.service.Interact.requestStream);
  assert.ok(pkg.SessionService.service.Interact.responseStream);
  assert.ok(pkg.QueryService.service.StreamQueries.requestStream);
  assert.ok(pkg.QueryService.service.StreamQueries.responseStream);
});

// A tetrahedron-like mesh asset: four corners, two triangles.
const TETRA = 'assets/' + 'a'.repeat(64);
const TETRA_ASSET = { name: TETRA, mesh: {
  vertices: [v(0, 0, 0), v(1, 0, 0), v(0, 1, 0), v(0, 0, 1)], indices: [0, 2, 1, 0, 1, 3] } };
const meshAsset = (asset, extra = {}) => ({ kind: 'mesh_asset', mesh_asset: {
  asset, as_hull: false, scale: null, max_vertices: 0, file: '', ...extra } });

test('mesh assets: scaled hull points or scaled triangles; unset scale is (1, 1, 1)', () => {
  const assets = new Map([[TETRA, { vertices: [0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1],
                                     indices: [0, 2, 1, 0, 1, 3] }]]);
  const rigid = (shape) => encodeSceneBody({ id: 'm', kind: 'BODY_KIND_DYNAMIC', pose: null,
                                             shape }, assets).shape;
  assert.deepEqual(rigid(meshAsset(TETRA, { as_hull: true, scale: v(2, 3, 4) })), {
    kind: 'hull', points: [0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 4] });
  assert.deepEqual(rigid(meshAsset(TETRA, { scale: v(0, 0, 0) })), {
    kind: 'mesh', vertices: [0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1], indices: [0, 2, 1, 0, 1, 3] });
  assert.deepEqual(rigid(meshAsset(TETRA)).vertices, [0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1]);
  // Inside a compound too; an asset that is not at hand draws nothing.
  const compound = rigid({ kind: 'compound', compound: { children: [
    { shape: meshAsset(TETRA, { as_hull: true, scale: v(2, 2, 2) }),
      pose: { position: v(0, 1, 0) } },
    { shape: meshAsset('assets/' + 'b'.repeat(64)), pose: null },
  ] } });
  assert.deepEqual(compound.children[0], { shape: { kind: 'hull',
    points: [0, 0, 0, 2, 0, 0, 0, 2, 0, 0, 0, 2] }, p: [0, 1, 0], q: [0, 0, 0, 1] });
  assert.equal(compound.children[1].shape, null);
  // The cached mesh is not changed by scaling.
  assert.deepEqual(assets.get(TETRA).vertices, [0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1]);
});

test('mesh asset names are collected from bodies and compound children, once each', () => {
  const other = 'assets/' + 'c'.repeat(64);
  const names = meshAssetNames([
    { id: 'room', shape: meshAsset(TETRA) },
    { id: 'ball', shape: { kind: 'sphere', sphere: { radius: 1 } } },
    { id: 'rope', rod: {}, shape: null },
    { id: 'pair', shape: { kind: 'compound', compound: { children: [
      { shape: meshAsset(other, { as_hull: true }) }, { shape: meshAsset(TETRA) }] } } },
  ]);
  assert.deepEqual([...names].sort(), [TETRA, other].sort());
});

test('the asset cache fetches each asset once, shares a fetch in flight, forgets failures',
     async () => {
  const cache = new AssetCache();
  const calls = [];
  let fail = true;
  const fetch = (name) => {
    calls.push(name);
    if (name !== TETRA) return Promise.reject(new Error(`${name}: not found`));
    return new Promise((resolve) => setImmediate(() => resolve(TETRA_ASSET)));
  };
  const [a, b] = await Promise.all([cache.get(TETRA, fetch), cache.get(TETRA, fetch)]);
  assert.equal(a, b);
  assert.deepEqual(a, { vertices: [0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1],
                        indices: [0, 2, 1, 0, 1, 3] });
  assert.equal(await cache.get(TETRA, fetch), a);
  assert.deepEqual(calls, [TETRA]);
  // A failed fetch is not kept: asking again calls again, and a later success is kept.
  const missing = 'assets/' + 'd'.repeat(64);
  const flaky = (name) => {
    calls.push(name);
    return fail ? Promise.reject(new Error('UNAVAILABLE')) : Promise.resolve(TETRA_ASSET);
  };
  await assert.rejects(cache.get(missing, flaky), /UNAVAILABLE/);
  fail = false;
  assert.deepEqual((await cache.get(missing, flaky)).indices, [0, 2, 1, 0, 1, 3]);
  await cache.get(missing, flaky);
  assert.deepEqual(calls, [TETRA, missing, missing]);
  const { meshes, errors } = await cache.getAll(new Set([TETRA, 'assets/gone']), fetch);
  assert.deepEqual([...meshes.keys()], [TETRA]);
  assert.match(errors.get('assets/gone').message, /not found/);
});

// A WebSocket stand-in that keeps what the session sends.
class FakeSocket extends EventEmitter {
  constructor() {
    super();
    Object.assign(this, { OPEN: 1, readyState: 1, bufferedAmount: 0, sent: [] });
  }
  send(text) { this.sent.push(JSON.parse(text)); }
}

// gRPC client stand-ins: ExportScene gives a static room mesh and a mug hull (both the same
// asset here) and a compound naming a deleted asset; GetAsset counts its calls.
function fakeClients(cache, getAssetCalls) {
  const gone = 'assets/' + 'e'.repeat(64);
  const scene = { settings: { paused: true }, bodies: [
    { id: 'room', kind: 'BODY_KIND_STATIC', pose: null, shape: meshAsset(TETRA) },
    { id: 'mug', kind: 'BODY_KIND_DYNAMIC', pose: null,
      shape: meshAsset(TETRA, { as_hull: true, scale: v(0.5, 0.5, 0.5) }) },
    { id: 'old', kind: 'BODY_KIND_DYNAMIC', pose: null, shape: { kind: 'compound', compound: {
      children: [{ shape: meshAsset(gone, { as_hull: true }), pose: null }] } } },
  ] };
  const unary = (handler) => (request, ...rest) => {
    const callback = rest[rest.length - 1];
    setImmediate(() => handler(request, callback));
  };
  return {
    assetCache: cache,
    metadata: undefined,
    scene: { ExportScene: unary((request, done) => done(null, scene)) },
    asset: { GetAsset: unary((request, done) => {
      getAssetCalls.push(request.name);
      if (request.name === TETRA && !request.skip_geometry) done(null, TETRA_ASSET);
      else done(Object.assign(new Error('not found'), { code: 5, details: 'no such asset' }));
    }) },
    frames: { Watch: () => Object.assign(new EventEmitter(), { cancel() {} }) },
  };
}

test('viewers get mesh assets in the scene message, fetched once for all of them', async () => {
  const cache = new AssetCache();
  const calls = [];
  const clients = fakeClients(cache, calls);
  const sockets = [new FakeSocket(), new FakeSocket()];
  const sessions = sockets.map((ws) => new ViewerSession(ws, clients));
  await Promise.all(sessions.map((s) => s.startWatch({ world: 'worlds/w' })));
  for (const ws of sockets) {
    const scene = ws.sent.find((m) => m.type === 'scene');
    const shapes = Object.fromEntries(scene.bodies.map((b) => [b.id, b.shape]));
    assert.deepEqual(shapes.room, { kind: 'mesh', vertices: [0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1],
                                    indices: [0, 2, 1, 0, 1, 3] });
    assert.deepEqual(shapes.mug, { kind: 'hull',
                                   points: [0, 0, 0, 0.5, 0, 0, 0, 0.5, 0, 0, 0, 0.5] });
    assert.equal(shapes.old.children[0].shape, null);
    const error = ws.sent.find((m) => m.type === 'error');
    assert.match(error.message, /NOT_FOUND: no such asset/);
  }
  // The two viewers shared one GetAsset per asset. A later viewer finds the stored asset in
  // the cache, while the failed one is asked for again.
  assert.deepEqual(calls.sort(), [TETRA, 'assets/' + 'e'.repeat(64)].sort());
  const late = new FakeSocket();
  sessions.push(new ViewerSession(late, clients));
  await sessions[2].startWatch({ world: 'worlds/w' });
  assert.equal(late.sent.find((m) => m.type === 'scene').bodies[0].shape.kind, 'mesh');
  assert.equal(calls.filter((n) => n === TETRA).length, 1);
  assert.equal(calls.length, 3);
  for (const s of sessions) s.stopStreams();
});

// A StreamQueries stand-in: keeps the requests written to it; the test answers them.
class FakeQueryStream extends EventEmitter {
  constructor() {
    super();
    this.written = [];
    this.cancelled = false;
  }
  write(request) { this.written.push(request); }
  cancel() { this.cancelled = true; }
  // Answers the request at `index` with one hit on `body`, `distance` along the ray.
  answer(index, body, distance) {
    const request = this.written[index];
    const hits = body ? [{ body, distance, point: v(0, distance, 0), normal: v(0, 1, 0) }] : [];
    this.emit('data', { world: request.world, tick: 42, sim_time: 0.7,
                        request_id: request.request_id, results: [{ hits, truncated: false }] });
  }
}

function querySession() {
  const streams = [];
  const clients = { metadata: undefined,
                    query: { StreamQueries: () => { streams.push(new FakeQueryStream()); return streams.at(-1); } } };
  const ws = new FakeSocket();
  const session = new ViewerSession(ws, clients);
  // Sends a request as the page would (JSON text) and waits for the session to handle it.
  const send = async (request) => {
    await session.onMessage(typeof request === 'string' ? request : JSON.stringify(request));
  };
  return { ws, session, streams, send };
}

const ray = (id, extra = {}) => ({ op: 'query', id, world: 'worlds/w', origin: [0, 5, 0],
                                   direction: [0, -1, 0], ...extra });

test('ray queries from the page are checked before they reach the stream', async () => {
  const { ws, streams, send } = querySession();
  const bad = [
    [ray(1, { origin: [0, 1] }), /origin: expected 3 finite numbers/],
    [ray(2, { origin: [0, 'x', 0] }), /origin: expected 3 finite numbers/],
    [ray(3, { direction: [0, 0, 0] }), /direction: must be non-zero/],
    [ray(4, { direction: null }), /direction: expected 3 finite numbers/],
    [ray(5, { world: 'showcase' }), /world: expected worlds\/\{id\}/],
    [ray(6, { max_distance: -1 }), /max_distance/],
    [ray(7, { max_distance: 2e6 }), /max_distance/],
    [ray(8, { all_hits: 'yes' }), /all_hits/],
    [ray(undefined), /id: a number or a string is required/],
  ];
  for (const [request, pattern] of bad) await send(request);
  // JSON has no Infinity, but 1e400 parses as one.
  await send('{"op":"query","id":9,"world":"worlds/w","origin":[0,1e400,0],"direction":[0,-1,0]}');
  assert.equal(streams.length, 0, 'nothing bad reaches the server');
  assert.equal(ws.sent.length, bad.length + 1);
  bad.forEach(([request, pattern], i) => {
    assert.equal(ws.sent[i].type, 'error');
    assert.equal(ws.sent[i].op, 'query');
    assert.equal(ws.sent[i].id, request.id);
    assert.match(ws.sent[i].message, pattern);
  });
  assert.match(ws.sent.at(-1).message, /origin: expected 3 finite numbers/);
});

test('ray queries share one stream, one in flight, only the newest one waiting', async () => {
  const { ws, session, streams, send } = querySession();
  await send(ray(1, { max_distance: 20, all_hits: true }));
  assert.equal(streams.length, 1);
  const stream = streams[0];
  assert.deepEqual(stream.written, [{ world: 'worlds/w', request_id: 1, queries: [{ ray: {
    origin: v(0, 5, 0), direction: v(0, -1, 0), max_distance: 20, all_hits: true } }] }]);
  // Three more while the first is unanswered: the second and third are dropped in turn.
  await send(ray(2));
  await send(ray(3));
  await send(ray(4, { direction: [1, 0, 0] }));
  assert.equal(stream.written.length, 1, 'nothing more is written while one is in flight');
  assert.deepEqual(ws.sent, [{ type: 'query_dropped', id: 2 }, { type: 'query_dropped', id: 3 }]);
  ws.sent.length = 0;
  // The answer goes out with the page's id; then the waiting query is written.
  stream.answer(0, 'ball', 4.7);
  assert.deepEqual(ws.sent, [{ type: 'query_result', id: 1, world: 'worlds/w', tick: 42,
    hits: [{ body: 'ball', distance: 4.7, point: [0, 4.7, 0], normal: [0, 1, 0] }] }]);
  assert.equal(stream.written.length, 2);
  assert.equal(stream.written[1].request_id, 2);
  assert.deepEqual(stream.written[1].queries[0].ray.direction, v(1, 0, 0));
  assert.equal(stream.written[1].queries[0].ray.max_distance, 0, "unset: the server's default");
  stream.answer(1, null);
  assert.deepEqual(ws.sent[1], { type: 'query_result', id: 4, world: 'worlds/w', tick: 42, hits: [] });
  // With nothing in flight the next one is written at once, on the same stream.
  await send(ray('five'));
  assert.equal(stream.written.length, 3);
  assert.equal(streams.length, 1);
  // The viewer goes: the stream is cancelled.
  ws.emit('close');
  assert.ok(stream.cancelled);
  assert.equal(session.queryStream, null);
});

test("a stream ended by the server answers the query in flight with its status; the next opens another",
     async () => {
  const { ws, streams, send } = querySession();
  await send(ray(1, { world: 'worlds/gone' }));
  await send(ray(2));
  const error = Object.assign(new Error('5 NOT_FOUND: no world gone'),
                              { code: 5, details: 'no world gone' });
  streams[0].emit('error', error);
  streams[0].emit('end');
  assert.deepEqual(ws.sent, [{ type: 'error', op: 'query', id: 1, message: 'NOT_FOUND: no world gone' }]);
  // The waiting query went out on a new stream, and is answered there.
  assert.equal(streams.length, 2);
  assert.equal(streams[1].written.length, 1);
  streams[1].answer(0, 'ground', 5);
  assert.equal(ws.sent[1].type, 'query_result');
  assert.equal(ws.sent[1].id, 2);
  assert.equal(ws.sent[1].hits[0].body, 'ground');
  // A stream that ends without a status while a query is in flight answers it too.
  await send(ray(3));
  streams[1].emit('end');
  assert.deepEqual(ws.sent[2], { type: 'error', op: 'query', id: 3, message: 'the query stream ended' });
  await send(ray(4));
  assert.equal(streams.length, 3);
});

test('hinge and slider drives become the page\'s controls; other joints do not', () => {
  const hinge = (drive, limits = null) => ({ id: 'door-hinge', kind: 'hinge',
                                             hinge: { frames: {}, limits, drive } });
  const spring = { mode: 'DRIVE_MODE_SPRING', target_position: 0.2, target_velocity: 0 };
  const motor = { mode: 'DRIVE_MODE_VELOCITY', target_position: 0, target_velocity: 0.1 };
  const drives = encodeDrives([
    hinge(spring, { lower: -1.5, upper: 0 }),
    hinge(spring),
    { id: 'drawer-slide', kind: 'slider', slider: { frames: {}, limits: null, drive: motor } },
    { id: 'free', kind: 'hinge', hinge: { frames: {}, limits: null, drive: null } },
    { id: 'weld', kind: 'fixed', fixed: { frames: {} } },
  ]);
  assert.deepEqual(drives, [
    { id: 'door-hinge', joint: 'hinge', target: 'position', range: [-1.5, 0], value: 0.2 },
    { id: 'door-hinge', joint: 'hinge', target: 'position', range: [-Math.PI, Math.PI],
      value: 0.2 },
    { id: 'drawer-slide', joint: 'slider', target: 'velocity', range: [-0.5, 0.5], value: 0.1 },
  ]);
});

test('drive targets from the page are checked, then streamed as Interact drive targets',
     async () => {
  const written = [];
  const interact = Object.assign(new EventEmitter(), { write: (m) => written.push(m), cancel() {} });
  const clients = { metadata: undefined,
                    session: { Interact: () => interact },
                    frames: { Watch: () => Object.assign(new EventEmitter(), { cancel() {} }) } };
  const ws = new FakeSocket();
  const session = new ViewerSession(ws, clients);
  const send = (request) => session.onMessage(JSON.stringify(request));
  await send({ op: 'drive', constraint: 'door-hinge', position: 1 });
  assert.match(ws.sent.at(-1).message, /watch a world first/);
  session.world = 'worlds/w';
  const bad = [
    [{ op: 'drive', position: 1 }, /constraint: a constraint id is required/],
    [{ op: 'drive', constraint: 'door-hinge' }, /exactly one of position and velocity/],
    [{ op: 'drive', constraint: 'door-hinge', position: 1, velocity: 1 },
     /exactly one of position and velocity/],
    [{ op: 'drive', constraint: 'door-hinge', position: 'open' }, /position: expected 1 finite/],
  ];
  for (const [request, pattern] of bad) {
    await send(request);
    assert.equal(ws.sent.at(-1).op, 'drive');
    assert.match(ws.sent.at(-1).message, pattern);
  }
  assert.equal(written.length, 0, 'nothing bad reaches the server');
  await send({ op: 'drive', constraint: 'door-hinge', position: -1.2 });
  await send({ op: 'drive', constraint: 'drawer-slide', velocity: 0.3 });
  // The stream's first message opens it on the world; then one drive target each.
  assert.equal(written[0].world, 'worlds/w');
  assert.deepEqual(written.slice(1), [
    { drive_targets: [{ constraint_id: 'door-hinge', target_position: -1.2 }] },
    { drive_targets: [{ constraint_id: 'drawer-slide', target_velocity: 0.3 }] },
  ]);
  session.stopStreams();
});
