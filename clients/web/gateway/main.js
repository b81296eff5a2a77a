#!/usr/bin/env node
'use strict';
// ligature-web: serves the viewer page and bridges it to a ligatured over WebSocket (/ws).
//   node gateway/main.js [--ligatured 127.0.0.1:50051] [--listen 127.0.0.1:8080]
//                        [--proto-dir DIR]
// --listen with port 0 binds a free port; the bound address is printed on stdout as
// "ligature-web: serving on http://HOST:PORT/".

const http = require('http');
const path = require('path');
const { WebSocketServer } = require('ws');
const { connect, DEFAULT_PROTO_DIR } = require('./grpc_clients');
const { makeRoutes, serveStatic } = require('./static_files');
const { ViewerSession } = require('./viewer_session');

function parseArgs(argv) {
  const options = { ligatured: '127.0.0.1:50051', listen: '127.0.0.1:8080', protoDir: DEFAULT_PROTO_DIR };
  const names = { '--ligatured': 'ligatured', '--listen': 'listen', '--proto-dir': 'protoDir' };
  for (let i = 0; i < argv.length; i++) {
    let [flag, value] = argv[i].split(/=(.*)/s, 2);
    if (flag === '--help' || flag === '-h') {
      console.log('usage: node gateway/main.js [--ligatured HOST:PORT] [--listen HOST:PORT] [--proto-dir DIR]');
      process.exit(0);
    }
    if (!(flag in names)) throw new Error(`unknown flag ${flag}`);
    if (value === undefined) value = argv[++i];
    if (value === undefined) throw new Error(`${flag} needs a value`);
    options[names[flag]] = value;
  }
  return options;
}

function splitHostPort(address) {
  const match = /^(.*):(\d+)$/.exec(address);
  if (!match) throw new Error(`--listen: expected HOST:PORT, got ${address}`);
  return { host: match[1].replace(/^\[|\]$/g, ''), port: Number(match[2]) };
}

function main() {
  let options;
  try {
    options = parseArgs(process.argv.slice(2));
  } catch (e) {
    console.error(`ligature-web: ${e.message}`);
    process.exit(2);
  }
  const clients = connect(options.ligatured, options.protoDir);
  const routes = makeRoutes(path.resolve(__dirname, '..'));
  const server = http.createServer((req, res) => serveStatic(routes, req, res));
  const wss = new WebSocketServer({ server, path: '/ws', maxPayload: 1024 * 1024 });
  wss.on('connection', (ws) => new ViewerSession(ws, clients));

  const { host, port } = splitHostPort(options.listen);
  server.listen(port, host, () => {
    const bound = server.address();
    const shown = bound.family === 'IPv6' ? `[${bound.address}]` : bound.address;
    console.log(`ligature-web: serving on http://${shown}:${bound.port}/ (ligatured ${options.ligatured})`);
  });
  server.on('error', (e) => {
    console.error(`ligature-web: ${e.message}`);
    process.exit(1);
  });
  const stop = () => {
    for (const ws of wss.clients) ws.terminate();
    wss.close();
    server.close();
    clients.close();
    process.exit(0);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main();
