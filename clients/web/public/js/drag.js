// Dragging a kinematic body with the mouse: a press on one starts the drag on the plane
// facing the camera through the pressed point; each move sends the body's new pose as a
// device pose (the gateway forwards it through SessionService.Interact), at most once per
// animation frame. The orbit controls are off while dragging.
import * as THREE from 'three';

export class DragController {
  constructor(viewer, sendPose) {
    this.viewer = viewer;
    this.sendPose = sendPose;
    this.raycaster = new THREE.Raycaster();
    this.plane = new THREE.Plane();
    this.offset = new THREE.Vector3();
    this.dragging = null;   // {id, orientation}
    this.pending = null;    // the newest position not sent yet
    const canvas = viewer.renderer.domElement;
    canvas.addEventListener('pointerdown', (e) => this.onDown(e));
    canvas.addEventListener('pointermove', (e) => this.onMove(e));
    canvas.addEventListener('pointerup', (e) => this.onUp(e));
    canvas.addEventListener('pointercancel', (e) => this.onUp(e));
  }

  ray(event) {
    const rect = this.viewer.renderer.domElement.getBoundingClientRect();
    const ndc = new THREE.Vector2(
      ((event.clientX - rect.left) / rect.width) * 2 - 1,
      -((event.clientY - rect.top) / rect.height) * 2 + 1);
    this.raycaster.setFromCamera(ndc, this.viewer.camera);
    return this.raycaster.ray;
  }

  // The kinematic body under the pointer, if any.
  pick(event) {
    const targets = [];
    for (const view of this.viewer.views.values()) {
      if (view.type === 'rigid' && view.kind === 'BODY_KIND_KINEMATIC') targets.push(view.object);
    }
    this.ray(event);
    const hit = this.raycaster.intersectObjects(targets, true)[0];
    if (!hit) return null;
    let object = hit.object;
    while (object && object.userData.bodyId === undefined) object = object.parent;
    return object ? { id: object.userData.bodyId, object, point: hit.point } : null;
  }

  onDown(event) {
    if (event.button !== 0) return;
    const picked = this.pick(event);
    if (!picked) return;
    event.stopImmediatePropagation();
    if (this.viewer.controls) this.viewer.controls.enabled = false;
    const normal = this.viewer.camera.getWorldDirection(new THREE.Vector3()).negate();
    this.plane.setFromNormalAndCoplanarPoint(normal, picked.point);
    this.offset.copy(picked.object.position).sub(picked.point);
    const q = picked.object.quaternion;
    this.dragging = { id: picked.id, orientation: [q.x, q.y, q.z, q.w] };
    this.viewer.renderer.domElement.setPointerCapture(event.pointerId);
  }

  onMove(event) {
    if (!this.dragging) return;
    const point = this.ray(event).intersectPlane(this.plane, new THREE.Vector3());
    if (!point) return;
    point.add(this.offset);
    if (!this.pending) requestAnimationFrame(() => this.flush());
    this.pending = point;
  }

  flush() {
    if (!this.pending || !this.dragging) { this.pending = null; return; }
    const p = this.pending;
    this.pending = null;
    this.sendPose(this.dragging.id, [p.x, p.y, p.z], this.dragging.orientation);
  }

  onUp() {
    if (!this.dragging) return;
    this.flush();
    this.dragging = null;
    if (this.viewer.controls) this.viewer.controls.enabled = true;
  }
}
