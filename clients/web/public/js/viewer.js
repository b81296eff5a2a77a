// The three.js side: renderer (with WebXR and its "Enter VR" button where the browser offers
// it), lights, camera and orbit controls, and the body views of the world being shown.
import * as THREE from 'three';
import { OrbitControls } from 'three/addons/controls/OrbitControls.js';
import { VRButton } from 'three/addons/webxr/VRButton.js';
import { COLOURS } from './colours.js';
import { createView } from './body_views.js';

export class Viewer {
  constructor(container) {
    this.container = container;
    this.renderer = new THREE.WebGLRenderer({ antialias: true });
    this.renderer.setPixelRatio(window.devicePixelRatio);
    this.renderer.shadowMap.enabled = true;
    this.renderer.xr.enabled = true;
    container.appendChild(this.renderer.domElement);
    this.vrButton = VRButton.createButton(this.renderer);
    container.appendChild(this.vrButton);

    this.scene = new THREE.Scene();
    this.scene.background = new THREE.Color(COLOURS.background);
    this.camera = new THREE.PerspectiveCamera(50, 1, 0.01, 200);
    this.camera.position.set(0, 1.6, 4);
    this.addLights();

    // The world's content sits under one group; in VR it is seen from the headset's pose.
    this.root = new THREE.Group();
    this.scene.add(this.root);
    this.views = new Map();   // body id -> view
    this.framed = false;      // the camera was fitted to the world's content
    this.highlighted = null;  // the id of the body tinted as under the pointer
    this.tinted = new Map();  // material -> what the tint replaced, to put it back

    this.resize();
    window.addEventListener('resize', () => this.resize());
    this.renderer.setAnimationLoop(() => this.render());
  }

  // Orbit controls come after other pointer handlers (the body drag), so those run first.
  enableControls() {
    this.controls = new OrbitControls(this.camera, this.renderer.domElement);
    this.controls.target.set(0, 0.5, 0);
    this.controls.update();
  }

  addLights() {
    this.scene.add(new THREE.HemisphereLight(0xe8eef5, 0x3a3f47, 1.4));
    const sun = new THREE.DirectionalLight(0xffffff, 2.0);
    sun.position.set(3, 6, 4);
    sun.castShadow = true;
    sun.shadow.mapSize.set(1024, 1024);
    Object.assign(sun.shadow.camera, { left: -4, right: 4, top: 4, bottom: -4, near: 0.5, far: 20 });
    this.scene.add(sun);
  }

  resize() {
    const w = this.container.clientWidth || 1;
    const h = this.container.clientHeight || 1;
    this.camera.aspect = w / h;
    this.camera.updateProjectionMatrix();
    this.renderer.setSize(w, h);
  }

  // A new world: drop the old views and build one per body of its scene.
  setScene(bodies) {
    this.setHighlight(null);
    for (const view of this.views.values()) {
      this.root.remove(view.object);
      view.dispose();
    }
    this.views.clear();
    for (const desc of bodies) this.addView(desc);
    this.framed = false;
  }

  addView(desc) {
    const view = createView(desc);
    view.object.userData.bodyId = desc.id;
    this.views.set(desc.id, view);
    this.root.add(view.object);
    return view;
  }

  // Returns the ids of bodies the frame has and the scene did not (created since), and
  // whether a soft body needs its triangles sent again.
  applyFrame(frame) {
    const unknown = [];
    let needsTriangles = false;
    for (const state of frame.bodies) {
      const view = this.views.get(state.id);
      if (!view) { unknown.push(state.id); continue; }
      const result = view.update(state);
      if (result && result.needsTriangles) needsTriangles = true;
    }
    if (!this.framed && frame.bodies.length > 0) this.frameContent();
    return { unknown, needsTriangles };
  }

  // Tints the body with this id as the one under the pointer (null: none), putting back the
  // previous one's look. Ground planes are not tinted: the whole floor lighting up whenever
  // the pointer is over it would be noise.
  setHighlight(id) {
    if (id === this.highlighted) return;
    for (const [material, saved] of this.tinted) {
      if (material.emissive) material.emissive.setHex(saved); else material.color.setHex(saved);
    }
    this.tinted.clear();
    this.highlighted = null;
    const view = id === null ? undefined : this.views.get(id);
    if (!view || view.isPlane) return;
    view.object.traverse((o) => {
      const materials = Array.isArray(o.material) ? o.material : o.material ? [o.material] : [];
      for (const m of materials) {
        if (this.tinted.has(m)) continue;  // shared by a compound's children
        if (m.emissive) {
          this.tinted.set(m, m.emissive.getHex());
          m.emissive.setHex(COLOURS.highlightEmissive);
        } else if (m.color) {
          this.tinted.set(m, m.color.getHex());
          m.color.setHex(COLOURS.highlightLine);
        }
      }
    });
    this.highlighted = id;
  }

  // Points the camera at everything but the ground planes, from the front and a little above.
  frameContent() {
    const box = new THREE.Box3();
    for (const view of this.views.values()) {
      if (view.isPlane) continue;
      view.object.updateMatrixWorld(true);
      box.expandByObject(view.object);
    }
    if (box.isEmpty()) return;
    this.framed = true;
    const sphere = box.getBoundingSphere(new THREE.Sphere());
    const radius = Math.max(sphere.radius, 0.2);
    const distance = 1.15 * radius / Math.sin(THREE.MathUtils.degToRad(this.camera.fov) / 2);
    const direction = new THREE.Vector3(0, 0.3, 1).normalize();
    this.camera.position.copy(sphere.center).addScaledVector(direction, distance);
    this.camera.near = distance / 100;
    this.camera.far = distance * 50;
    this.camera.updateProjectionMatrix();
    if (this.controls) {
      this.controls.target.copy(sphere.center);
      this.controls.update();
    } else {
      this.camera.lookAt(sphere.center);
    }
  }

  render() {
    if (this.controls && !this.renderer.xr.isPresenting) this.controls.update();
    this.renderer.render(this.scene, this.camera);
  }

  // Where a body is, in the world: a rigid body's origin, the middle of a rod, the centroid
  // of a soft body's vertices, a strand's last point.
  bodyPoint(id) {
    const view = this.views.get(id);
    if (!view) return null;
    if (view.type === 'rigid') return view.object.position.clone();
    if (view.type === 'rod') {
      return view.points.length ? view.points[view.points.length >> 1].clone() : null;
    }
    const position = view.geometry.getAttribute('position');
    if (!position || position.count === 0) return null;
    if (view.type === 'strand') {
      return new THREE.Vector3().fromBufferAttribute(position, position.count - 1);
    }
    const centroid = new THREE.Vector3();
    const vertex = new THREE.Vector3();
    for (let i = 0; i < position.count; i++) centroid.add(vertex.fromBufferAttribute(position, i));
    return centroid.divideScalar(position.count);
  }

  // A world point -> page coordinates (CSS pixels), for tests and tools.
  toPage(point) {
    const ndc = point.clone().project(this.camera);
    const rect = this.renderer.domElement.getBoundingClientRect();
    return { x: rect.left + (ndc.x + 1) / 2 * rect.width, y: rect.top + (1 - ndc.y) / 2 * rect.height };
  }

  stats() {
    const counts = { rigid: 0, rod: 0, soft: 0, strand: 0, softTriangles: 0, strandSegments: 0 };
    for (const view of this.views.values()) {
      counts[view.type] += 1;
      if (view.type === 'soft') counts.softTriangles += view.triangles;
      if (view.type === 'strand') counts.strandSegments += view.segments;
    }
    return counts;
  }
}
