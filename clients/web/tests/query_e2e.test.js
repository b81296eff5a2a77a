'use strict';
// End to end at the WebSocket: a real ligatured with the showcase scene, the gateway, and a
// viewer's socket sending the pointer's ray queries. The static log (a capsule of radius
// 0.07 m lying along x at (-0.6, 0.07, 0.5)) and the ground plane give analytic answers:
// a ray down onto the log's top, one along x into its end cap, every hit of the downward
// ray (log, then ground), a reach too short for the log, and a ray into the sky. Bad
// queries are refused by the gateway with the field at fault, an unknown world with the
// server's status, and the socket keeps working after each; a burst of queries is answered
// once each, the newest always, with no backlog.

const path = require('path');
const test = require('node:test');
const assert = require('node:assert/strict');
const { WEB_DIR, startLigatured, startGateway, stop, openViewerSocket } = require('./processes');

const SCENE = path.join(WEB_DIR, 'scenes', 'showcase.textproto');
const WORLD = 'worlds/showcase';
const TOLERANCE = 1e-6;

// A viewer's socket that sends ray queries and waits for the message answering an id.
async function openViewer(url) {
  const socket = await openViewerSocket(url);
  const answer = (id, timeoutMs = 5000) =>
    socket.waitFor((m) => m.id === id, `an answer to query ${id}`, timeoutMs, true);
  let nextId = 1;
  // Sends a ray query and resolves with its answer.
  const query = (fields) => {
    const id = nextId++;
    socket.send({ op: 'query', id, world: WORLD, ...fields });
    return answer(id);
  };
  return { ...socket, answer, query, nextId: () => nextId++ };
}

function near(actual, expected, what) {
  if (Array.isArray(expected)) {
    expected.forEach((e, i) => near(actual[i], e, `${what}[${i}]`));
    return;
  }
  assert.ok(Math.abs(actual - expected) <= TOLERANCE, `${what}: ${actual}, expected ${expected}`);
}

test("the gateway answers the pointer's ray queries from the server's ray cast", async (t) => {
  const server = await startLigatured(SCENE);
  t.after(() => stop(server));
  const gateway = await startGateway(server.address);
  t.after(() => stop(gateway));
  const viewer = await openViewer(gateway.url);
  t.after(() => viewer.ws.close());

  await t.test('a ray down onto the log hits its top', async () => {
    const answer = await viewer.query({ origin: [-0.6, 2, 0.5], direction: [0, -1, 0] });
    assert.equal(answer.type, 'query_result', JSON.stringify(answer));
    assert.equal(answer.world, WORLD);
    assert.ok(Number.isInteger(answer.tick) && answer.tick >= 0);
    assert.equal(answer.hits.length, 1, 'the nearest hit only');
    const [hit] = answer.hits;
    assert.equal(hit.body, 'log');
    near(hit.distance, 2 - 0.14, 'distance');
    near(hit.point, [-0.6, 0.14, 0.5], 'point');
    near(hit.normal, [0, 1, 0], 'normal');
  });

  await t.test("a ray along -x enters the log's end cap; the direction need not be unit", async () => {
    const answer = await viewer.query({ origin: [2, 0.07, 0.5], direction: [-3, 0, 0] });
    const [hit] = answer.hits;
    assert.equal(hit.body, 'log');
    near(hit.distance, 2 - (-0.6 + 0.15 + 0.07), 'distance');
    near(hit.normal, [1, 0, 0], 'normal');
  });

  await t.test('all_hits gives each body once, nearest first; a short reach misses', async () => {
    const all = await viewer.query({ origin: [-0.6, 2, 0.5], direction: [0, -1, 0], all_hits: true });
    assert.deepEqual(all.hits.map((h) => h.body), ['log', 'ground']);
    near(all.hits[1].distance, 2, 'ground distance');
    const short = await viewer.query({ origin: [-0.6, 2, 0.5], direction: [0, -1, 0],
                                       max_distance: 1.5 });
    assert.deepEqual(short.hits, []);
  });

  await t.test('a ray into the sky hits nothing', async () => {
    const answer = await viewer.query({ origin: [0, 3, 0], direction: [0.1, 1, 0] });
    assert.equal(answer.type, 'query_result');
    assert.deepEqual(answer.hits, []);
  });

  await t.test('bad queries are refused by the gateway, naming the field', async () => {
    const zero = await viewer.query({ origin: [0, 1, 0], direction: [0, 0, 0] });
    assert.equal(zero.type, 'error');
    assert.equal(zero.op, 'query');
    assert.match(zero.message, /^direction: must be non-zero/);
    const short = await viewer.query({ origin: [0, 1], direction: [0, -1, 0] });
    assert.match(short.message, /^origin: expected 3 finite numbers/);
    // 1e400 is a JSON number that parses as Infinity.
    const id = viewer.nextId();
    viewer.ws.send(`{"op":"query","id":${id},"world":"${WORLD}","origin":[0,1e400,0],"direction":[0,-1,0]}`);
    assert.match((await viewer.answer(id)).message, /^origin: expected 3 finite numbers/);
  });

  await t.test("an unknown world is answered with the server's status; the next query works", async () => {
    const answer = await viewer.query({ world: 'worlds/nowhere', origin: [0, 1, 0], direction: [0, -1, 0] });
    assert.equal(answer.type, 'error');
    assert.match(answer.message, /^NOT_FOUND: /);
    const after = await viewer.query({ origin: [3, 1, 3], direction: [0, -1, 0] });
    assert.equal(after.type, 'query_result');
    assert.equal(after.hits[0].body, 'ground');
    near(after.hits[0].distance, 1, 'ground distance');
  });

  await t.test('a burst of queries is answered once each, the newest always, in order', async () => {
    const ids = [];
    for (let i = 0; i < 200; i++) {
      const id = viewer.nextId();
      ids.push(id);
      viewer.ws.send(JSON.stringify({ op: 'query', id, world: WORLD,
                                      origin: [-0.6, 2 + i * 0.001, 0.5], direction: [0, -1, 0] }));
    }
    const last = await viewer.answer(ids.at(-1));
    assert.equal(last.type, 'query_result');
    near(last.hits[0].distance, 2 + 0.199 - 0.14, 'the newest ray');
    const answers = viewer.received.filter((m) => ids.includes(m.id));
    assert.deepEqual(answers.map((m) => m.id).sort((a, b) => a - b), ids, 'one answer per query');
    const results = answers.filter((m) => m.type === 'query_result');
    const dropped = answers.filter((m) => m.type === 'query_dropped');
    assert.equal(results.length + dropped.length, ids.length, 'no errors');
    const order = results.map((m) => m.id);
    assert.deepEqual(order, [...order].sort((a, b) => a - b), 'results come in order');
    // Each result is for its own ray.
    for (const r of results) {
      near(r.hits[0].distance, 2 + (r.id - ids[0]) * 0.001 - 0.14, `query ${r.id}`);
    }
    t.diagnostic(`${results.length} answered, ${dropped.length} dropped for newer ones`);
  });
});
