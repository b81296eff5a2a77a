// Dragging a body with the mouse: a press on one starts the drag on the plane facing the
// camera through the pressed point, and each move goes to the gateway at most once per
// animation frame. A kinematic body is moved: its new pose is a device pose (the gateway
// forwards it through SessionService.Interact). A dynamic body is grabbed: the gateway joins
// the pressed point to a target by a spring drive, and moves pull the target (drive targets
// through Interact), so the body follows with its own dynamics; letting go deletes the
// drive. The orbit controls are off while dragging. Which body a press is on, and where, is
// the server's ray cast through the pointer (pointer.js).
import * as THREE from 'three';

export class DragController {
  // send(request): sends a request ({op: 'pose' | 'grab' | 'grab_move' | 'release', ...})
  // to the gateway.
  constructor(viewer, send, pointer) {
    this.viewer = viewer;
    this.send = send;
    this.pointer = pointer;
    this.plane = new THREE.Plane();
    this.offset = new THREE.Vector3();
    this.dragging = null;   // {id, orientation, grab}
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

  // The kinematic or dynamic rigid body the server's hit names, if it is one:
  // {id, object, point, grab}.
  draggable(hit) {
    const view = hit ? this.viewer.views.get(hit.body) : undefined;
    if (!view || view.type !== 'rigid' || view.kind === 'BODY_KIND_STATIC') return null;
    return { id: hit.body, object: view.object, point: new THREE.Vector3().fromArray(hit.point),
             grab: view.kind !== 'BODY_KIND_KINEMATIC' };
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
    this.dragging = { id: picked.id, orientation: [q.x, q.y, q.z, q.w], grab: picked.grab };
    if (picked.grab) {
      // The pressed point in the body's frame is held; the target starts there.
      this.offset.set(0, 0, 0);
      const local = picked.object.worldToLocal(picked.point.clone());
      this.send({ op: 'grab', body: picked.id, local: local.toArray(),
                  target: picked.point.toArray() });
    }
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
    if (this.dragging.grab) {
      this.send({ op: 'grab_move', target: [p.x, p.y, p.z] });
    } else {
      this.send({ op: 'pose', body: this.dragging.id, position: [p.x, p.y, p.z],
                  orientation: this.dragging.orientation });
    }
  }

  onUp(event) {
    if (this.held && this.held.pointerId === event.pointerId) this.held = null;
    if (!this.dragging) return;
    this.flush();
    if (this.dragging.grab) this.send({ op: 'release' });
    this.dragging = null;
    if (this.viewer.controls) this.viewer.controls.enabled = true;
  }
}
