// The page: lists the worlds, shows the chosen one live (?world=ID picks it, else the first),
// pauses, resumes and steps it, highlights the body the server's ray cast finds under the
// pointer, drags kinematic bodies, and sets the scene's joint drives from sliders.
// window.ligatureViewer exposes the viewer's state for tests and the browser console.
import { Connection } from './connection.js';
import { Viewer } from './viewer.js';
import { DragController } from './drag.js';
import { PointerQuery } from './pointer.js';
import { DriveControls } from './drives.js';

const $ = (id) => document.getElementById(id);
// Frames are asked for at most at a display's rate: a 1 kHz world is not sent 1000 a second.
const DISPLAY_RATE_HZ = 60;

const viewer = new Viewer($('view'));
const state = {
  world: null,         // worlds/{id} shown
  paused: false,
  frames: 0,           // frames received for the shown world
  lastTick: null,
  worlds: [],
  sceneRequested: 0,   // when the scene was last asked for again (new bodies appeared)
  resyncing: false,    // soft triangles were asked for again and have not come yet
};

// A bearer token for a gateway that requires one comes in the page's fragment
// (#token=TOKEN), which the browser does not send with the page request; the WebSocket
// carries it to the gateway, which passes it on with this viewer's calls.
const token = new URLSearchParams(location.hash.slice(1)).get('token');
const wsUrl = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/ws` +
  (token ? `?token=${encodeURIComponent(token)}` : '');
const connection = new Connection(wsUrl, {
  onOpen: () => {
    connection.send({ op: 'list' });
    if (state.world) watch(state.world);
  },
  onMessage: handleMessage,
  onStatus: (text) => { $('connection').textContent = text; },
});
// The pointer's ray goes to the server; what it hits is tinted and named in the panel.
const pointer = new PointerQuery(viewer, {
  send: (request) => connection.send(request),
  world: () => state.world,
  onHit: (hit) => {
    $('pointer-hit').textContent = hit ? `${hit.body}, ${hit.distance.toFixed(3)} m` : '-';
  },
});
const drag = new DragController(viewer, (request) => {
  connection.send({ ...request, world: state.world });
}, pointer);
const drives = new DriveControls($('drives'), (request) => connection.send(request));
viewer.enableControls();
pointer.followCamera(viewer.controls);

function handleMessage(message) {
  switch (message.type) {
    case 'worlds': showWorlds(message.worlds); break;
    case 'scene': showScene(message); break;
    case 'frame': showFrame(message); break;
    case 'world': showWorldState(message.world); break;
    case 'query_result': pointer.onResult(message); break;
    case 'query_dropped': pointer.onUnanswered(message); break;
    case 'error':
      if (message.op === 'query') pointer.onUnanswered(message);
      $('error').textContent = `${message.op || ''}: ${message.message}`;
      break;
    case 'stream-end': $('connection').textContent = `stream ended (${message.stream})`; break;
    default: break;
  }
}

function showWorlds(worlds) {
  state.worlds = worlds;
  const list = $('world-list');
  list.replaceChildren();
  for (const w of worlds) {
    const item = document.createElement('li');
    item.dataset.world = w.name;
    item.innerHTML = `<span class="name"></span> <span class="meta"></span>`;
    item.querySelector('.name').textContent = w.name.replace(/^worlds\//, '');
    item.querySelector('.meta').textContent =
      `${w.bodyCount} bodies, ${w.rateHz} Hz${w.paused ? ', paused' : ''}`;
    item.classList.toggle('selected', w.name === state.world);
    item.addEventListener('click', () => watch(w.name));
    list.appendChild(item);
  }
  if (!state.world && worlds.length > 0) {
    const wanted = new URLSearchParams(location.search).get('world');
    const chosen = worlds.find((w) => w.name === `worlds/${wanted}`) || worlds[0];
    watch(chosen.name);
  }
}

function watch(world) {
  state.world = world;
  state.frames = 0;
  state.lastTick = null;
  $('world-name').textContent = world.replace(/^worlds\//, '');
  $('frame-count').textContent = '0';
  $('error').textContent = '';
  pointer.reset();
  for (const item of $('world-list').children) {
    item.classList.toggle('selected', item.dataset.world === world);
  }
  connection.send({ op: 'watch', world, maxRateHz: DISPLAY_RATE_HZ });
}

function showScene(message) {
  if (message.world !== state.world) return;
  viewer.setScene(message.bodies);
  drives.show(message.drives || []);
  setPaused(message.paused);
}

function showFrame(frame) {
  if (frame.world !== state.world) return;
  const { unknown, needsTriangles } = viewer.applyFrame(frame);
  if (needsTriangles && !state.resyncing) {
    state.resyncing = true;
    connection.send({ op: 'resync' });
  }
  // Bodies created after the scene was read: read it again, at most once a second.
  if (unknown.length > 0 && performance.now() - state.sceneRequested > 1000) {
    state.sceneRequested = performance.now();
    connection.send({ op: 'watch', world: state.world, maxRateHz: DISPLAY_RATE_HZ });
  }
  if (!needsTriangles) state.resyncing = false;
  state.frames += 1;
  state.lastTick = frame.tick;
  $('frame-count').textContent = String(state.frames);
  $('tick').textContent = String(frame.tick);
  $('sim-time').textContent = frame.simTime.toFixed(3);
  $('step-ms').textContent = frame.stepMs.toFixed(2);
  $('body-count').textContent = String(frame.bodies.length);
  $('contacts').textContent = String(frame.solver.contacts || 0);
  $('asleep').textContent = String(frame.solver.asleep || 0);
}

function showWorldState(world) {
  if (world.name === state.world) setPaused(world.paused);
  connection.send({ op: 'list' });
}

function setPaused(paused) {
  state.paused = paused;
  $('pause').textContent = paused ? 'Resume' : 'Pause';
  $('pause').disabled = false;
  $('step').disabled = !paused;
}

$('pause').addEventListener('click', () => {
  if (state.world) connection.send({ op: 'pause', world: state.world, paused: !state.paused });
});
$('step').addEventListener('click', () => {
  if (state.world) connection.send({ op: 'step', world: state.world, ticks: 1 });
});
$('refresh').addEventListener('click', () => connection.send({ op: 'list' }));

window.ligatureViewer = {
  viewer,
  state,
  pointer,
  drag,
  stats: () => viewer.stats(),
  // Page coordinates of a body (see Viewer.bodyPoint), or null.
  bodyOnPage: (id) => {
    const point = viewer.bodyPoint(id);
    return point ? viewer.toPage(point) : null;
  },
  bodyPosition: (id) => {
    const point = viewer.bodyPoint(id);
    return point ? [point.x, point.y, point.z] : null;
  },
};
