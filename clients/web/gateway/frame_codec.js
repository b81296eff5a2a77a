'use strict';
// Proto messages (as loaded by proto-loader) -> the compact JSON the page reads: vectors
// become flat number arrays, and a soft body's triangles are sent only when its topology
// changed since the last frame this viewer got (a cut), since they are the bulk of a frame.

function flatVec3s(list) {
  const out = new Array(list.length * 3);
  for (let i = 0; i < list.length; i++) {
    const v = list[i];
    out[3 * i] = v.x; out[3 * i + 1] = v.y; out[3 * i + 2] = v.z;
  }
  return out;
}

function vec3(v) { return v ? [v.x, v.y, v.z] : [0, 0, 0]; }

// An all-zero quaternion is the identity, as the API says.
function quat(q) {
  if (!q || (q.x === 0 && q.y === 0 && q.z === 0 && q.w === 0)) return [0, 0, 0, 1];
  return [q.x, q.y, q.z, q.w];
}

function pose(p) {
  return { p: vec3(p && p.position), q: quat(p && p.orientation) };
}

// Remembers, per viewer, which soft topology each body was last sent with.
class FrameEncoder {
  constructor() { this.topology = new Map(); }

  reset() { this.topology.clear(); }

  encode(frame) {
    const bodies = frame.bodies.map((b) => this.encodeBody(b));
    const s = frame.solver || {};
    return {
      type: 'frame',
      world: frame.world,
      tick: Number(frame.tick),
      simTime: frame.sim_time,
      stepMs: frame.step_ms,
      solver: { iterations: s.iterations, contacts: s.contacts, residual: s.residual,
                asleep: s.sleeping_bodies || 0 },
      cuts: frame.cuts.length,
      tools: frame.tools.map((t) => t.body_id),
      bodies,
    };
  }

  encodeBody(b) {
    const out = { id: b.id, ...pose(b.pose) };
    if (b.sleeping) out.asleep = true;
    if (b.rod_points.length > 0) out.rod = flatVec3s(b.rod_points);
    if (b.soft_vertices.length > 0) {
      out.soft = { v: flatVec3s(b.soft_vertices), topology: b.topology_version };
      if (this.topology.get(b.id) !== b.topology_version) {
        out.soft.t = Array.from(b.soft_triangles);
        this.topology.set(b.id, b.topology_version);
      }
    }
    if (b.strand_points.length > 0) {
      out.strand = { p: flatVec3s(b.strand_points), parents: Array.from(b.strand_parents) };
    }
    return out;
  }
}

// A world as the page lists it.
function encodeWorld(w) {
  const settings = w.settings || {};
  return {
    name: w.name,
    tick: Number(w.tick),
    simTime: w.sim_time,
    bodyCount: w.body_count,
    paused: !!settings.paused,
    rateHz: settings.rate_hz,
  };
}

// A scene's bodies as the page builds them: what each one is and how it looks at rest.
// `assets` maps the names of the mesh assets the scene uses to their meshes (AssetCache).
function encodeSceneBody(b, assets = new Map()) {
  const out = { id: b.id, kind: b.kind, ...pose(b.pose) };
  if (b.rod) {
    out.type = 'rod';
    const m = b.rod.material || {};
    out.radius = m.radius > 0 ? m.radius : 0.005;  // the API default when unset
  } else if (b.soft) {
    out.type = 'soft';
  } else if (b.strand) {
    out.type = 'strand';
  } else {
    out.type = 'rigid';
    out.shape = encodeShape(b.shape, assets);
  }
  return out;
}

// The triangles of a height field as the server lays them: the grid centred on the origin
// in XZ (columns along +x, rows along +z), two triangles a cell that is not a hole, facing
// +y, with the diagonal alternating between neighbouring cells.
function heightFieldMesh(h) {
  const rows = h.rows || 0, columns = h.columns || 0;
  const heights = h.heights || [];
  const holes = new Set(h.holes || []);
  const vertices = [];
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < columns; c++) {
      vertices.push((c - 0.5 * (columns - 1)) * h.spacing_x, heights[r * columns + c] || 0,
        (r - 0.5 * (rows - 1)) * h.spacing_z);
    }
  }
  const indices = [];
  for (let r = 0; r + 1 < rows; r++) {
    for (let c = 0; c + 1 < columns; c++) {
      if (holes.has(r * (columns - 1) + c)) continue;
      const p00 = r * columns + c, p01 = p00 + 1, p10 = p00 + columns, p11 = p10 + 1;
      if ((r + c) % 2 === 0) indices.push(p00, p10, p01, p01, p10, p11);
      else indices.push(p00, p10, p11, p00, p11, p01);
    }
  }
  return { vertices, indices };
}

// The names of the mesh assets that the scene's rigid bodies use, compound children included.
function meshAssetNames(bodies) {
  const names = new Set();
  const visit = (shape) => {
    if (!shape || !shape.kind) return;
    if (shape.kind === 'mesh_asset' && shape.mesh_asset.asset) names.add(shape.mesh_asset.asset);
    if (shape.kind === 'compound') {
      for (const child of shape.compound.children || []) visit(child.shape);
    }
  };
  for (const b of bodies || []) visit(b.shape);
  return names;
}

// A mesh asset drawn as the page draws inline shapes: as a hull of its scaled vertices, or as
// its scaled triangles. Unset scale (all zero) is (1, 1, 1), as the API says. An asset that
// could not be fetched draws nothing.
function encodeMeshAsset(s, assets) {
  const mesh = assets.get(s.asset);
  if (!mesh) return null;
  const sc = s.scale;
  const scale = !sc || (sc.x === 0 && sc.y === 0 && sc.z === 0) ? [1, 1, 1] : [sc.x, sc.y, sc.z];
  const vertices = mesh.vertices.map((x, i) => x * scale[i % 3]);
  if (s.as_hull) return { kind: 'hull', points: vertices };
  return { kind: 'mesh', vertices, indices: mesh.indices };
}

function encodeShape(shape, assets = new Map()) {
  if (!shape || !shape.kind) return null;
  const s = shape[shape.kind];
  switch (shape.kind) {
    case 'sphere': return { kind: 'sphere', radius: s.radius };
    case 'box': return { kind: 'box', halfExtents: vec3(s.half_extents) };
    case 'capsule': return { kind: 'capsule', radius: s.radius, halfLength: s.half_length };
    case 'plane': return { kind: 'plane' };
    // A hull's points, flat (x, y, z, ...): the viewer draws their convex hull.
    case 'hull': return { kind: 'hull', points: (s.points || []).flatMap(vec3) };
    // A mesh's vertices, flat, and its triangles' indices, three each.
    case 'mesh':
      return { kind: 'mesh', vertices: (s.vertices || []).flatMap(vec3), indices: s.indices || [] };
    case 'mesh_asset': return encodeMeshAsset(s, assets);
    // A height field is drawn as the mesh it collides as.
    case 'height_field': return { kind: 'mesh', ...heightFieldMesh(s) };
    case 'compound':
      return {
        kind: 'compound',
        children: s.children.map((c) => ({ shape: encodeShape(c.shape, assets), ...pose(c.pose) })),
      };
    default: return null;
  }
}

// The joints the page offers a control for: hinges and sliders with a drive. A spring's
// control sets its target position (within the joint's limits, else a turn either way for a
// hinge and a metre for a slider), a motor's its target velocity (2 rad/s or 0.5 m/s either
// way); `value` is the target the scene starts with.
function encodeDrives(constraints) {
  const out = [];
  for (const c of constraints || []) {
    if (c.kind !== 'hinge' && c.kind !== 'slider') continue;
    const joint = c[c.kind];
    if (!joint.drive) continue;
    const hinge = c.kind === 'hinge';
    const limits = joint.limits;
    if (joint.drive.mode === 'DRIVE_MODE_SPRING') {
      const range = limits ? [limits.lower, limits.upper] : hinge ? [-Math.PI, Math.PI] : [-1, 1];
      out.push({ id: c.id, joint: c.kind, target: 'position', range,
                 value: joint.drive.target_position });
    } else if (joint.drive.mode === 'DRIVE_MODE_VELOCITY') {
      const top = hinge ? 2 : 0.5;
      out.push({ id: c.id, joint: c.kind, target: 'velocity', range: [-top, top],
                 value: joint.drive.target_velocity });
    }
  }
  return out;
}

// One hit of a ray query as the page reads it: the body, how far along the ray, and the
// surface point and outward normal as flat arrays.
function encodeQueryHit(hit) {
  return { body: hit.body, distance: hit.distance, point: vec3(hit.point), normal: vec3(hit.normal) };
}

module.exports = {
  FrameEncoder, encodeWorld, encodeSceneBody, encodeShape, meshAssetNames, encodeQueryHit,
  encodeDrives,
};
