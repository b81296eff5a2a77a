'use strict';
// The gateway's pure parts: the frame encoding (flat vectors, soft triangles only when the
// topology changed, identity for an all-zero quaternion), the scene's shapes, and the static
// file routes (nothing outside public/ and three's folders is reachable).

const path = require('path');
const test = require('node:test');
const assert = require('node:assert/strict');
const { FrameEncoder, encodeSceneBody } = require('../gateway/frame_codec');
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
  for (const service of ['WorldService', 'SessionService', 'SceneService']) {
    assert.equal(typeof pkg[service], 'function', service);
  }
  assert.ok(pkg.SessionService.service.Interact.requestStream);
  assert.ok(pkg.SessionService.service.Interact.responseStream);
});
