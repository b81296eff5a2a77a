'use strict';
// The gateway's pure parts: the frame encoding (flat vectors, soft triangles only when the
// topology changed, identity for an all-zero quaternion), the scene's shapes (mesh assets as
// the hulls and meshes the page already draws), the asset cache, and the static file routes
// (nothing outside public/ and three's folders is reachable). A viewer session runs against
// stand-in gRPC clients to show that assets are fetched once for all viewers.

const path = require('path');
const { EventEmitter } = require('events');
const test = require('node:test');
const assert = require('node:assert/strict');
const { FrameEncoder, encodeSceneBody, meshAssetNames } = require('../gateway/frame_codec');
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
  for (const service of ['WorldService', 'SessionService', 'SceneService', 'AssetService']) {
    assert.equal(typeof pkg[service], 'function', service);
  }
  assert.ok(pkg.SessionService.service.Interact.requestStream);
  assert.ok(pkg.SessionService.service.Interact.responseStream);
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
    session: { Watch: () => Object.assign(new EventEmitter(), { cancel() {} }) },
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
