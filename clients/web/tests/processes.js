'use strict';
// Real processes for the tests: a ligatured on a free loopback port (--listen 127.0.0.1:0,
// which reports the bound port) and the gateway on another (--listen 127.0.0.1:0); and a
// viewer's WebSocket to the gateway, as the page opens it.

const { spawn } = require('child_process');
const path = require('path');

const WEB_DIR = path.resolve(__dirname, '..');

// Starts `argv` and resolves with {child, match, output()} once `pattern` appears in its
// output; rejects when it exits first or after timeoutMs.
function startProcess(argv, pattern, { timeoutMs = 15000, env = process.env } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0], argv.slice(1), { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    let done = false;
    const finish = (err, match) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      if (err) { child.kill('SIGKILL'); reject(err); } else resolve({ child, match, output: () => output });
    };
    const onData = (data) => {
      output += data;
      const match = pattern.exec(output);
      if (match) finish(null, match);
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('error', (e) => finish(e));
    child.on('exit', (code) => finish(new Error(`${argv[0]} exited (${code}) before it was ready:\n${output}`)));
    const timer = setTimeout(
      () => finish(new Error(`${argv[0]} not ready within ${timeoutMs} ms:\n${output}`)), timeoutMs);
  });
}

async function startLigatured(scene, extraArgs = []) {
  const binary = process.env.LIGATURED;
  if (!binary) throw new Error('LIGATURED must name the ligatured binary');
  const p = await startProcess(
    [binary, '--listen=127.0.0.1:0', `--scene=${scene}`, '--world_id=showcase', ...extraArgs],
    /serving on \S+ \(port (\d+)\)/);
  return { ...p, address: `127.0.0.1:${p.match[1]}` };
}

async function startGateway(ligaturedAddress, extraArgs = []) {
  const p = await startProcess(
    [process.execPath, path.join(WEB_DIR, 'gateway', 'main.js'),
     '--ligatured', ligaturedAddress, '--listen', '127.0.0.1:0', ...extraArgs],
    /serving on (https?:\/\/\S+\/)/);
  return { ...p, url: p.match[1] };
}

// SIGINT, then SIGKILL after 5 s.
function stop(p) {
  if (!p || p.child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => p.child.kill('SIGKILL'), 5000);
    p.child.on('exit', () => { clearTimeout(timer); resolve(); });
    p.child.kill('SIGINT');
  });
}

// A viewer's socket to the gateway at `url`: keeps every message it gets (`received`), sends
// requests as JSON (`send`), and waits for the first message passing `predicate` (`waitFor`;
// with `earlier`, one already received counts too).
async function openViewerSocket(url) {
  const WebSocket = require('ws');
  const ws = new WebSocket(url.replace(/^http/, 'ws') + 'ws');
  await new Promise((resolve, reject) => { ws.on('open', resolve); ws.on('error', reject); });
  const received = [];
  const waiting = [];
  ws.on('message', (data) => {
    const message = JSON.parse(String(data));
    received.push(message);
    for (const w of waiting.splice(0)) if (!w(message)) waiting.push(w);
  });
  const waitFor = (predicate, what, timeoutMs = 5000, earlier = false) =>
    new Promise((resolve, reject) => {
      const done = earlier ? received.find(predicate) : undefined;
      if (done) { resolve(done); return; }
      const timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), timeoutMs);
      waiting.push((m) => {
        if (!predicate(m)) return false;
        clearTimeout(timer);
        resolve(m);
        return true;
      });
    });
  const send = (request) =>
    ws.send(typeof request === 'string' ? request : JSON.stringify(request));
  return { ws, received, waitFor, send };
}

module.exports = { WEB_DIR, startProcess, startLigatured, startGateway, stop, openViewerSocket };
