// Dragging a kinematic body with the mouse: a press on one starts the drag on the plane
// facing the camera through the pressed point; each move sends the body's new pose as a
// device pose (the gateway forwards it through SessionService.Interact), at most once per
// animation frame. The orbit controls are off while dragging. Which body a press is on, and
// where, is the server's ray cast through the pointer (pointer.js).
import * as THREE from 'three';

export class DragController {
  constructor(viewer, sendPose, pointer) {
    this.viewer = viewer;
    this.sendPose = sendPose;
    this.pointer = pointer;
    this.plane = new THREE.Plane();
    this.offset = new THREE.Vector3();
    this.dragging = null;   // {id, orientation}
    this.pending = null;    // the newest position not sent yet
    this.held = null;       // a press waiting for the server's answer: {pointerId, init}
    this.replayed = new WeakSet();  // presses handed on to the orbit controls
    this.lastPress = null;  // how the last press was decided: 'answered' or 'asked' (for tests)
    const canvas = viewer.renderer.domElement;
    canvas.addEventListener('pointerdown', (e) => this.onDown(e));
    canvas.addEventListener('pointermove', (e) => this.onMove(e));
    canvas.addEventListener('pointerup', (e) => this.onUp(e));
    canvas.addEventListener('pointercancel', (e) => this.onUp(e));
  }

  // The kinematic body the server's hit names, if it is one: {id, object, point}.
  draggable(hit) {
    const view = hit ? this.viewer.views.get(hit.body) : undefined;
    if (!view || view.type !== 'rigid' || view.kind !== 'BODY_KIND_KINEMATIC') return null;
    return { id: hit.body, object: view.object, point: new THREE.Vector3().fromArray(hit.point) };
  }

  // A press where the server has answered for this very ray (the mouse hovered there) is
  // decided at once. Otherwise (a touch, or a press quicker than the answer) the press is
  // held back from the orbit controls while the server is asked, then either starts a drag
  // or is handed on to them as if it had just happened.
  onDown(event) {
    if (event.button !== 0 || this.replayed.has(event)) return;
    const ray = this.pointer.rayAt(event.clientX, event.clientY);
    const known = this.pointer.answerFor(ray);
    if (known !== undefined) {
      this.lastPress = 'answered';
      const picked = this.draggable(known);
      if (!picked) return;
      event.stopImmediatePropagation();
      this.start(picked, event.pointerId);
      return;
    }
    event.stopImmediatePropagation();
    this.lastPress = 'asked';
    const init = { pointerId: event.pointerId, pointerType: event.pointerType,
                   isPrimary: event.isPrimary, button: event.button, buttons: event.buttons,
                   clientX: event.clientX, clientY: event.clientY, screenX: event.screenX,
                   screenY: event.screenY, ctrlKey: event.ctrlKey, shiftKey: event.shiftKey,
                   altKey: event.altKey, metaKey: event.metaKey,
                   bubbles: true, cancelable: true, composed: true };
    const held = { pointerId: event.pointerId, init };
    this.held = held;
    this.pointer.ask(ray).then((hit) => {
      if (this.held !== held) return;  // released (or pressed again) meanwhile
      this.held = null;
      const picked = this.draggable(hit);
      if (picked) {
        this.start(picked, held.pointerId);
        return;
      }
      const replay = new PointerEvent('pointerdown', held.init);
      this.replayed.add(replay);
      this.viewer.renderer.domElement.dispatchEvent(replay);
    });
  }

  start(picked, pointerId) {
    if (this.viewer.controls) this.viewer.controls.enabled = false;
    const normal = this.viewer.camera.getWorldDirection(new THREE.Vector3()).negate();
    this.plane.setFromNormalAndCoplanarPoint(normal, picked.point);
    this.offset.copy(picked.object.position).sub(picked.point);
    const q = picked.object.quaternion;
    this.dragging = { id: picked.id, orientation: [q.x, q.y, q.z, q.w] };
    this.viewer.renderer.domElement.setPointerCapture(pointerId);
  }

  onMove(event) {
    if (!this.dragging) return;
    const { ray } = this.pointer.rayAt(event.clientX, event.clientY);
    const point = ray.intersectPlane(this.plane, new THREE.Vector3());
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

  onUp(event) {
    if (this.held && this.held.pointerId === event.pointerId) this.held = null;
    if (!this.dragging) return;
    this.flush();
    this.dragging = null;
    if (this.viewer.controls) this.viewer.controls.enabled = true;
  }
}
