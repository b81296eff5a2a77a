// What is under the pointer, as the server sees it: when the mouse moves over the view (or
// the camera moves under a still mouse), the ray from the camera through the pointer goes to
// the gateway as a query at most once per animation frame; the gateway asks the world's
// QueryService. The body the server reports as hit is highlighted, and named with its
// distance in the status panel. The drag asks here which body a press is on. A server
// without the QueryService (UNIMPLEMENTED) is not asked again.
import * as THREE from 'three';

// Two rays are the same when their numbers agree this closely (the same pointer position
// seen from the same camera gives the very same numbers).
const SAME_RAY = 1e-9;
// A query asked for with ask() is given up (answered null) after this long.
const ASK_TIMEOUT_MS = 2000;

export class PointerQuery {
  // send(request): sends a request to the gateway; world(): the world shown (or null);
  // onHit(hit): the newest answer's hit ({body, distance, point, normal}) or null.
  constructor(viewer, { send, world, onHit }) {
    this.viewer = viewer;
    this.send = send;
    this.world = world;
    this.onHit = onHit;
    this.raycaster = new THREE.Raycaster();
    this.nextId = 1;
    this.at = null;            // the pointer's client coordinates, while it is over the view
    this.scheduled = false;    // a query is due at the next animation frame
    this.asked = new Map();    // id -> {world, origin, direction}, sent and not answered yet
    this.latest = null;        // the newest answer: {id, world, origin, direction, hit}
    this.shownFrom = 0;        // answers to queries older than this are not shown
    this.waiters = [];         // {id, resolve}: ask() calls waiting for an answer
    this.unavailable = false;  // the server has no QueryService: stop asking
    const canvas = viewer.renderer.domElement;
    canvas.addEventListener('pointermove', (e) => this.move(e.clientX, e.clientY));
    canvas.addEventListener('pointerleave', () => this.leave());
  }

  // The orbit controls report camera moves: the world under a still pointer changes too.
  followCamera(controls) {
    controls.addEventListener('change', () => { if (this.at) this.schedule(); });
  }

  // The ray through client coordinates (x, y), in world coordinates (the bodies' group sits
  // at the world's origin): {origin: [3], direction: [3], ray: THREE.Ray}.
  rayAt(x, y) {
    const rect = this.viewer.renderer.domElement.getBoundingClientRect();
    const ndc = new THREE.Vector2(((x - rect.left) / rect.width) * 2 - 1,
                                  -((y - rect.top) / rect.height) * 2 + 1);
    this.raycaster.setFromCamera(ndc, this.viewer.camera);
    const { origin, direction } = this.raycaster.ray;
    return { origin: origin.toArray(), direction: direction.toArray(), ray: this.raycaster.ray.clone() };
  }

  move(x, y) {
    this.at = { x, y };
    this.schedule();
  }

  // At most one query per animation frame, for where the pointer is by then.
  schedule() {
    if (this.scheduled) return;
    this.scheduled = true;
    requestAnimationFrame(() => {
      this.scheduled = false;
      if (this.at) this.query(this.rayAt(this.at.x, this.at.y));
    });
  }

  // The pointer left the view: nothing is under it, and answers on their way are not shown.
  leave() {
    this.at = null;
    this.shownFrom = this.nextId;
    this.show(null);
  }

  // A new world: what was under the pointer belongs to the old one.
  reset() {
    this.latest = null;
    this.shownFrom = this.nextId;
    this.show(null);
  }

  query({ origin, direction }) {
    const world = this.world();
    if (!world || this.unavailable) return null;
    const id = this.nextId++;
    this.asked.set(id, { world, origin, direction });
    this.send({ op: 'query', id, world, origin, direction });
    return id;
  }

  // The server's answer for exactly this ray ({origin, direction} as rayAt gives them): the
  // hit, or null for a miss; undefined when this ray was not the last one answered.
  answerFor({ origin, direction }) {
    const last = this.latest;
    if (!last || last.world !== this.world()) return undefined;
    const same = (a, b) => a.every((x, i) => Math.abs(x - b[i]) <= SAME_RAY);
    return same(last.origin, origin) && same(last.direction, direction) ? last.hit : undefined;
  }

  // Asks for this ray now; resolves with the hit (or null) of the first answer to it or to a
  // newer query (the gateway may drop it for a newer one, which is the fresher answer).
  ask(ray) {
    const id = this.query(ray);
    if (id === null) return Promise.resolve(null);
    return new Promise((resolve) => {
      const waiter = { id, resolve };
      this.waiters.push(waiter);
      setTimeout(() => this.settle((w) => w === waiter, null), ASK_TIMEOUT_MS);
    });
  }

  settle(matches, hit) {
    const done = this.waiters.filter(matches);
    this.waiters = this.waiters.filter((w) => !matches(w));
    for (const w of done) w.resolve(hit);
  }

  // {type: 'query_result', id, world, tick, hits}: the nearest hit, if any, is shown.
  onResult(message) {
    const asked = this.asked.get(message.id);
    for (const id of this.asked.keys()) if (id <= message.id) this.asked.delete(id);
    if (!asked) return;
    const hit = message.hits.length > 0 ? message.hits[0] : null;
    if (asked.world === this.world()) {
      this.latest = { id: message.id, ...asked, hit };
      if (message.id >= this.shownFrom) this.show(hit);
    }
    this.settle((w) => w.id <= message.id, hit);
  }

  // {type: 'query_dropped', id}: a newer query took its place; {type: 'error', op: 'query',
  // id}: it failed (the page shows the error). Either way it will not be answered.
  onUnanswered(message) {
    if (message.type === 'error' && /^UNIMPLEMENTED/.test(message.message)) this.unavailable = true;
    this.asked.delete(message.id);
    this.settle((w) => w.id === message.id, null);
  }

  show(hit) {
    this.viewer.setHighlight(hit ? hit.body : null);
    this.onHit(hit);
  }
}
