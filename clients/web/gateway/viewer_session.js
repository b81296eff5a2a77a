'use strict';
// One browser viewer on one WebSocket: its requests (JSON, one per message) become gRPC
// calls, and the frames of the world it watches are forwarded as they come. Frames arrive on
// a Watch stream until the viewer first drives a body; then the gateway opens an Interact
// stream (which carries the device poses and its own frames) and drops the Watch. Pointer
// ray queries go over one QueryService.StreamQueries stream per viewer, opened at the first
// query and cancelled when the viewer goes. A viewer grabs a dynamic body with a 6-DOF drive
// joint (a spring from a point of the body to a target the pointer moves, streamed as
// Interact drive targets), deleted when it lets go or goes, and sets the targets of the
// scene's hinge and slider drives (a door's spring, a drawer's motor) the same way.

const grpc = require('@grpc/grpc-js');
const { call, withMetadata } = require('./grpc_clients');

// A gRPC error as the server reported it ("PERMISSION_DENIED: this token lacks ..."); any
// other error by its message.
function errorText(e) {
  const name = typeof e.code === 'number' ? grpc.status[e.code] : undefined;
  return name && e.details !== undefined ? `${name}: ${e.details}` : e.message;
}
const {
  FrameEncoder, encodeWorld, encodeSceneBody, meshAssetNames, encodeQueryHit, encodeDrives,
} = require('./frame_codec');
const { assetFetcher, sharedAssetCache } = require('./asset_cache');

// A frame is dropped rather than queued when this much is still waiting to be sent: the
// viewer gets the newest frame, never a backlog (as the server treats slow watchers).
const MAX_BUFFERED_BYTES = 4 * 1024 * 1024;
// A grab's spring: on a 10 kg body about 1.6 Hz, half critically damped, sagging 0.1 m
// under its weight; at most a force a hand could give.
const GRAB_STIFFNESS = 1000;  // N/m
const GRAB_DAMPING = 100;     // N s/m
const GRAB_MAX_FORCE = 500;   // N
// Grab joints' ids: unique to this gateway process and to each grab.
const GRAB_PREFIX = `${process.pid.toString(36)}${Date.now().toString(36)}`;
let grabCount = 0;
const WORLD_NAME = /^worlds\/[a-z0-9][a-z0-9_-]{0,62}$/;

class ViewerSession {
  constructor(ws, clients, log = () => {}) {
    this.ws = ws;
    this.clients = clients;
    this.log = log;
    this.encoder = new FrameEncoder();
    this.assets = clients.assetCache || sharedAssetCache;  // a test may bring its own
    this.world = null;      // worlds/{id} being watched
    this.maxRateHz = 0;
    this.watch = null;      // the Watch call, while frames come from it
    this.interact = null;   // the Interact call, once the viewer drove a body
    // Ray queries: the StreamQueries call, the one query written to it and not answered yet,
    // and the newest query waiting for that answer (older waiting ones are dropped).
    this.queryStream = null;
    this.queryInFlight = null;
    this.queryPending = null;
    this.queryCount = 0;    // the stream's request_id of the last query written
    this.grabbed = null;    // the body held: {world, constraint, target, released}
    ws.on('message', (data) => this.onMessage(data));
    ws.on('close', () => {
      this.release().catch(() => {});
      this.stopStreams();
      this.stopQueries();
    });
  }

  send(message) {
    if (this.ws.readyState === this.ws.OPEN) this.ws.send(JSON.stringify(message));
  }

  sendFrame(frame) {
    if (this.ws.bufferedAmount > MAX_BUFFERED_BYTES) return;
    if (frame.world !== this.world) return;  // a late frame of the previous world
    this.send(this.encoder.encode(frame));
  }

  // Requests: {op, ...}. Every failure is answered with {type: 'error', op, message}, and
  // with the request's id when it had one.
  async onMessage(data) {
    let request;
    try {
      request = JSON.parse(String(data));
    } catch (e) {
      this.send({ type: 'error', op: null, message: `not JSON: ${e.message}` });
      return;
    }
    const handlers = {
      list: () => this.list(),
      watch: () => this.startWatch(request),
      pause: () => this.pause(request),
      step: () => this.step(request),
      pose: () => this.pose(request),
      resync: () => this.encoder.reset(),  // the next frame carries every soft surface
      query: () => this.query(request),
      grab: () => this.grab(request),
      grab_move: () => this.grabMove(request),
      release: () => this.release(),
      drive: () => this.drive(request),
    };
    const handler = handlers[request && request.op];
    if (!handler) {
      this.send({ type: 'error', op: request && request.op, message: 'unknown op' });
      return;
    }
    try {
      await handler();
    } catch (e) {
      const reply = { type: 'error', op: request.op, message: errorText(e) };
      if (request.id !== undefined) reply.id = request.id;
      this.send(reply);
    }
  }

  async list() {
    const response = await call(this.clients.world, 'ListWorlds', { page_size: 1000 }, 10, this.clients.metadata);
    this.send({ type: 'worlds', worlds: response.worlds.map(encodeWorld) });
  }

  // Sends the world's bodies (shapes come from ExportScene once, the meshes of mesh assets
  // from the asset cache), then streams its frames.
  async startWatch({ world, maxRateHz }) {
    checkWorldName(world);
    this.stopStreams();
    this.world = world;
    this.maxRateHz = Number(maxRateHz) > 0 ? Number(maxRateHz) : 0;
    this.encoder.reset();
    const scene = await call(this.clients.scene, 'ExportScene', { parent: world }, 10, this.clients.metadata);
    if (this.world !== world) return;  // another watch started meanwhile
    const { meshes, errors } = await this.assets.getAll(meshAssetNames(scene.bodies),
                                                        assetFetcher(this.clients));
    if (this.world !== world) return;
    this.send({ type: 'scene', world, bodies: scene.bodies.map((b) => encodeSceneBody(b, meshes)),
                drives: encodeDrives(scene.constraints),
                paused: !!(scene.settings && scene.settings.paused) });
    // A shape whose asset could not be fetched (deleted since) is left out, and said so.
    for (const [name, e] of errors) {
      this.send({ type: 'error', op: 'watch', message: `${name}: ${errorText(e)}` });
    }
    const stream = this.clients.frames.Watch({ world, max_rate_hz: this.maxRateHz }, ...withMetadata(this.clients.metadata));
    this.watch = stream;
    this.attach(stream, 'watch');
  }

  attach(stream, kind) {
    stream.on('data', (frame) => this.sendFrame(frame));
    stream.on('error', (err) => {
      if (err.code === 1 /* CANCELLED */) return;
      this.send({ type: 'error', op: kind, message: errorText(err) });
    });
    stream.on('end', () => this.send({ type: 'stream-end', stream: kind, world: this.world }));
  }

  async pause({ world, paused }) {
    checkWorldName(world);
    const updated = await call(this.clients.world, 'UpdateWorld', {
      world: { name: world, settings: { paused: !!paused } },
      update_mask: { paths: ['settings.paused'] },
    }, 10, this.clients.metadata);
    this.send({ type: 'world', world: encodeWorld(updated) });
  }

  async step({ world, ticks }) {
    checkWorldName(world);
    const frame = await call(this.clients.world, 'StepWorld', { name: world, ticks: ticks | 0 || 1 },
                            10, this.clients.metadata);
    this.sendFrame(frame);
  }

  // A device pose for a kinematic body: {body, position: [x, y, z], orientation: [x, y, z, w]}.
  pose({ body, position, orientation }) {
    if (!this.world) throw new Error('watch a world first');
    if (typeof body !== 'string' || body.length === 0) throw new Error('body: a body id is required');
    const p = numbers(position, 3, 'position');
    const q = orientation == null ? [0, 0, 0, 1] : numbers(orientation, 4, 'orientation');
    if (!this.interact) this.openInteract();
    this.interact.write({
      poses: [{ body_id: body,
                pose: { position: { x: p[0], y: p[1], z: p[2] },
                        orientation: { x: q[0], y: q[1], z: q[2], w: q[3] } } }],
    });
  }

  // Grabs a dynamic body: {body, local: [x, y, z] (the held point in the body's frame),
  // target: [x, y, z] (world)}. A drive joint pulls that point to the target with a spring
  // (GRAB_STIFFNESS, GRAB_DAMPING, at most GRAB_MAX_FORCE), answered with
  // {type: 'grabbed', body, constraint}. A grab replaces the one held before; moves and a
  // release that come while the joint is being made wait for it.
  async grab({ body, local, target }) {
    if (!this.world) throw new Error('watch a world first');
    if (typeof body !== 'string' || body.length === 0) throw new Error('body: a body id is required');
    numbers(local, 3, 'local');
    numbers(target, 3, 'target');
    await this.release();
    const held = { world: this.world, constraint: null, target: null, released: false };
    this.grabbed = held;
    const id = `grab-${GRAB_PREFIX}-${++grabCount}`;
    try {
      await call(this.clients.scene, 'CreateConstraint', {
        parent: held.world,
        constraint: {
          id,
          drive: {
            frames: { body_a: body, frame_a: { position: xyz(local) },
                      frame_b: { position: xyz(target) } },
            linear: { mode: 'DRIVE_MODE_SPRING', stiffness: GRAB_STIFFNESS,
                      damping: GRAB_DAMPING, max_force: GRAB_MAX_FORCE },
          },
        },
      }, 10, this.clients.metadata);
    } catch (e) {
      if (this.grabbed === held) this.grabbed = null;
      throw e;
    }
    held.constraint = id;
    if (held.released) {
      await this.deleteGrab(held);
      return;
    }
    this.send({ type: 'grabbed', body, constraint: id });
    if (held.target) this.writeGrabTarget(held);
  }

  // Moves the held point's target: {target: [x, y, z]}, at the world's next tick.
  grabMove({ target }) {
    const held = this.grabbed;
    if (!held) throw new Error('nothing is grabbed');
    held.target = numbers(target, 3, 'target');
    if (held.constraint) this.writeGrabTarget(held);
  }

  writeGrabTarget(held) {
    if (!this.interact) this.openInteract();
    this.interact.write({
      drive_targets: [{ constraint_id: held.constraint,
                        frame_b: { position: xyz(held.target), orientation: { w: 1 } } }],
    });
  }

  // Lets go of the body held, if any: its drive joint is deleted (once it exists).
  async release() {
    const held = this.grabbed;
    this.grabbed = null;
    if (!held) return;
    held.released = true;
    if (held.constraint) await this.deleteGrab(held);
  }

  async deleteGrab(held) {
    await call(this.clients.scene, 'DeleteConstraint',
               { name: `${held.world}/constraints/${held.constraint}` }, 10, this.clients.metadata);
    this.send({ type: 'released', constraint: held.constraint });
  }

  // Sets a hinge's or slider's drive target at the world's next tick: {constraint,
  // position} for a spring, {constraint, velocity} for a motor (rad, m, rad/s or m/s).
  drive({ constraint, position, velocity }) {
    if (!this.world) throw new Error('watch a world first');
    if (typeof constraint !== 'string' || constraint.length === 0) {
      throw new Error('constraint: a constraint id is required');
    }
    if ((position === undefined) === (velocity === undefined)) {
      throw new Error('drive: exactly one of position and velocity is required');
    }
    const target = { constraint_id: constraint };
    if (position !== undefined) target.target_position = numbers([position], 1, 'position')[0];
    if (velocity !== undefined) target.target_velocity = numbers([velocity], 1, 'velocity')[0];
    if (!this.interact) this.openInteract();
    this.interact.write({ drive_targets: [target] });
  }

  // Interact replaces Watch as the frame source: the same world and rate, all bodies.
  openInteract() {
    const stream = this.clients.session.Interact(...withMetadata(this.clients.metadata));
    stream.write({ world: this.world, max_rate_hz: this.maxRateHz });
    this.interact = stream;
    this.attach(stream, 'interact');
    dropStream(this.watch);
    this.watch = null;
  }

  // A ray query: {id, world, origin: [x, y, z], direction: [x, y, z], max_distance?,
  // all_hits?}, answered with {type: 'query_result', id, world, tick, hits: [{body, distance,
  // point, normal}]} (the nearest hit only unless all_hits). At most one query is in flight:
  // one that arrives meanwhile waits, replacing (and answering {type: 'query_dropped', id})
  // any that was already waiting, so a slow server never builds up a backlog of pointer rays.
  query(request) {
    const query = parseQuery(request);
    if (this.queryInFlight) {
      if (this.queryPending) this.send({ type: 'query_dropped', id: this.queryPending.id });
      this.queryPending = query;
      return;
    }
    this.writeQuery(query);
  }

  writeQuery(query) {
    if (!this.queryStream) this.openQueryStream();
    this.queryCount += 1;
    this.queryInFlight = { ...query, requestId: this.queryCount };
    this.queryStream.write({
      world: query.world,
      request_id: this.queryCount,
      queries: [{ ray: { origin: xyz(query.origin), direction: xyz(query.direction),
                         max_distance: query.maxDistance, all_hits: query.allHits } }],
    });
  }

  // The stream answers each request in order. It ends on a bad request (the server's status
  // goes to the query in flight); the next query opens a new one.
  openQueryStream() {
    const stream = this.clients.query.StreamQueries(...withMetadata(this.clients.metadata));
    this.queryStream = stream;
    stream.on('data', (response) => this.onQueryResponse(stream, response));
    stream.on('error', (err) => this.onQueryStreamEnd(stream, err));
    stream.on('end', () => this.onQueryStreamEnd(stream, null));
  }

  onQueryResponse(stream, response) {
    const query = this.queryInFlight;
    if (stream !== this.queryStream || !query || Number(response.request_id) !== query.requestId) return;
    this.queryInFlight = null;
    const result = response.results[0];
    this.send({ type: 'query_result', id: query.id, world: response.world,
                tick: Number(response.tick), hits: result ? result.hits.map(encodeQueryHit) : [] });
    this.sendPendingQuery();
  }

  onQueryStreamEnd(stream, err) {
    if (stream !== this.queryStream) return;  // already handled (an error is followed by end)
    this.queryStream = null;
    const query = this.queryInFlight;
    this.queryInFlight = null;
    if (query) {
      this.send({ type: 'error', op: 'query', id: query.id,
                  message: err ? errorText(err) : 'the query stream ended' });
    }
    this.sendPendingQuery();
  }

  sendPendingQuery() {
    const next = this.queryPending;
    this.queryPending = null;
    if (next && this.ws.readyState === this.ws.OPEN) this.writeQuery(next);
  }

  stopQueries() {
    const stream = this.queryStream;
    this.queryStream = null;
    this.queryInFlight = null;
    this.queryPending = null;
    dropStream(stream);
  }

  stopStreams() {
    dropStream(this.watch);
    dropStream(this.interact);
    this.watch = null;
    this.interact = null;
  }
}

// Cancels a stream whose frames are no longer wanted; its cancellation error is expected.
function dropStream(stream) {
  if (!stream) return;
  stream.removeAllListeners();
  stream.on('error', () => {});
  stream.cancel();
}

function checkWorldName(world) {
  if (typeof world !== 'string' || !WORLD_NAME.test(world)) {
    throw new Error(`world: expected worlds/{id}, got ${JSON.stringify(world)}`);
  }
}

// A query request from the page, checked as the server checks it before it reaches the
// stream (where a bad one would end the stream): a world name, finite numbers, a direction
// of length above 1e-12 and a reach in (0, 1e6] m (unset: the server's default).
const MAX_QUERY_REACH = 1e6;

function parseQuery({ id, world, origin, direction, max_distance: maxDistance, all_hits: allHits }) {
  if (!(typeof id === 'string' || Number.isFinite(id))) throw new Error('id: a number or a string is required');
  checkWorldName(world);
  numbers(origin, 3, 'origin');
  numbers(direction, 3, 'direction');
  const length = Math.sqrt(direction[0] ** 2 + direction[1] ** 2 + direction[2] ** 2);
  if (!(length > 1e-12 && Number.isFinite(length))) throw new Error('direction: must be non-zero');
  if (maxDistance != null &&
      !(Number.isFinite(maxDistance) && maxDistance > 0 && maxDistance <= MAX_QUERY_REACH)) {
    throw new Error(`max_distance: expected a number in (0, ${MAX_QUERY_REACH}] m`);
  }
  if (allHits != null && typeof allHits !== 'boolean') throw new Error('all_hits: expected true or false');
  return { id, world, origin, direction, maxDistance: maxDistance == null ? 0 : maxDistance,
           allHits: !!allHits };
}

function xyz([x, y, z]) { return { x, y, z }; }

function numbers(value, n, field) {
  if (!Array.isArray(value) || value.length !== n || !value.every(Number.isFinite)) {
    throw new Error(`${field}: expected ${n} finite numbers`);
  }
  return value;
}

module.exports = { ViewerSession };
