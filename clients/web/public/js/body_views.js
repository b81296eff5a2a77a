// One view per body, updated from each frame. Rigid bodies move their mesh; rods, soft bodies
// and strands come in world coordinates and rebuild their geometry: a tube along the rod's
// sampled centreline, the soft body's boundary surface (its index buffer rebuilt when the
// topology changes after a cut), and a strand's segments as lines from each point's parent.
import * as THREE from 'three';
import { COLOURS, rigidColour } from './colours.js';
import { buildShape, setPose } from './shapes.js';

export function createView(desc) {
  switch (desc.type) {
    case 'rod': return new RodView(desc);
    case 'soft': return new SoftView(desc);
    case 'strand': return new StrandView(desc);
    default: return new RigidView(desc);
  }
}

class RigidView {
  constructor(desc) {
    this.type = 'rigid';
    this.kind = desc.kind;
    this.isPlane = desc.shape && desc.shape.kind === 'plane';
    this.material = new THREE.MeshStandardMaterial({
      color: rigidColour(desc.kind), roughness: 0.55, metalness: 0.05 });
    this.asleep = false;
    this.object = buildShape(desc.shape, this.material);
    this.object.traverse((o) => { if (o.isMesh && !this.isPlane) o.castShadow = true; });
    setPose(this.object, desc.p, desc.q);
  }

  // A sleeping body is drawn dimmed until it wakes.
  update(state) {
    setPose(this.object, state.p, state.q);
    const asleep = !!state.asleep;
    if (asleep === this.asleep) return;
    this.asleep = asleep;
    this.material.color.setHex(asleep ? COLOURS.asleep : rigidColour(this.kind));
  }

  dispose() { disposeTree(this.object); }
}

class RodView {
  constructor(desc) {
    this.type = 'rod';
    this.radius = Math.max(desc.radius, 0.003);  // thin threads stay visible
    this.material = new THREE.MeshStandardMaterial({ color: COLOURS.rod, roughness: 0.6 });
    this.object = new THREE.Mesh(new THREE.BufferGeometry(), this.material);
    this.object.castShadow = true;
    this.points = [];
  }

  update(state) {
    if (!state.rod || state.rod.length < 6) return;
    this.points = toVectors(state.rod);
    const curve = new THREE.CatmullRomCurve3(this.points);
    const segments = Math.min(256, 4 * this.points.length);
    const geometry = new THREE.TubeGeometry(curve, segments, this.radius, 10, false);
    this.object.geometry.dispose();
    this.object.geometry = geometry;
  }

  dispose() { this.object.geometry.dispose(); this.material.dispose(); }
}

class SoftView {
  constructor() {
    this.type = 'soft';
    this.topology = null;
    this.triangles = 0;
    this.geometry = new THREE.BufferGeometry();
    this.material = new THREE.MeshStandardMaterial({
      color: COLOURS.soft, roughness: 0.45, side: THREE.DoubleSide });
    this.object = new THREE.Mesh(this.geometry, this.material);
    this.object.castShadow = true;
  }

  update(state) {
    const soft = state.soft;
    if (!soft) return;
    // A new topology (a cut, or the first frame) brings its triangles: rebuild the index.
    // A new topology without them means this view missed them: ask for them again.
    if (soft.topology !== this.topology) {
      if (!soft.t) return { needsTriangles: true };
      this.geometry.setIndex(soft.t);
      this.topology = soft.topology;
      this.triangles = soft.t.length / 3;
    }
    let position = this.geometry.getAttribute('position');
    if (!position || position.count !== soft.v.length / 3) {
      position = new THREE.BufferAttribute(new Float32Array(soft.v.length), 3);
      position.setUsage(THREE.DynamicDrawUsage);
      this.geometry.setAttribute('position', position);
    }
    position.array.set(soft.v);
    position.needsUpdate = true;
    this.geometry.computeVertexNormals();
    this.geometry.computeBoundingSphere();
    return null;
  }

  dispose() { this.geometry.dispose(); this.material.dispose(); }
}

class StrandView {
  constructor() {
    this.type = 'strand';
    this.segments = 0;
    this.geometry = new THREE.BufferGeometry();
    this.material = new THREE.LineBasicMaterial({ color: COLOURS.strand });
    this.object = new THREE.LineSegments(this.geometry, this.material);
  }

  // Segment k joins point parent(k) to point k; parent(k) = k - 1 for a single chain.
  update(state) {
    const strand = state.strand;
    if (!strand) return;
    const p = strand.p;
    const n = p.length / 3;
    let position = this.geometry.getAttribute('position');
    if (!position || position.count !== 2 * (n - 1)) {
      position = new THREE.BufferAttribute(new Float32Array(6 * Math.max(n - 1, 0)), 3);
      position.setUsage(THREE.DynamicDrawUsage);
      this.geometry.setAttribute('position', position);
    }
    const out = position.array;
    let w = 0;
    for (let k = 1; k < n; k++) {
      const parent = strand.parents.length === n ? strand.parents[k] : k - 1;
      const a = parent >= 0 && parent < n ? parent : k - 1;
      out[w++] = p[3 * a]; out[w++] = p[3 * a + 1]; out[w++] = p[3 * a + 2];
      out[w++] = p[3 * k]; out[w++] = p[3 * k + 1]; out[w++] = p[3 * k + 2];
    }
    this.segments = n - 1;
    position.needsUpdate = true;
    this.geometry.computeBoundingSphere();
  }

  dispose() { this.geometry.dispose(); this.material.dispose(); }
}

function toVectors(flat) {
  const out = [];
  for (let i = 0; i + 2 < flat.length; i += 3) out.push(new THREE.Vector3(flat[i], flat[i + 1], flat[i + 2]));
  return out;
}

function disposeTree(object) {
  object.traverse((o) => {
    if (o.geometry) o.geometry.dispose();
    if (o.material) o.material.dispose();
  });
}
