#!/usr/bin/env node
'use strict';
// ligature-web: serves the viewer page and bridges it to a ligatured over WebSocket (/ws).
//   node gateway/main.js [--ligatured 127.0.0.1:50051] [--listen 127.0.0.1:8080]
//                        [--frames HOST:PORT] [--proto-dir DIR]
//                        [--tls [--tls-ca FILE] [--tls-cert FILE --tls-key FILE]]
//                        [--token-file FILE] [--require-token]
//                        [--https-cert FILE --https-key FILE]
// --frames takes the frames (Watch) from a viewer gateway (ligature-gateway, fed by the
// server through NATS) instead of ligatured; everything else still goes to ligatured.
// --listen with port 0 binds a free port; the bound address is printed on stdout as
// "ligature-web: serving on http://HOST:PORT/" (https with --https-cert).
//
// Upstream, --tls connects to ligatured with TLS (--tls-ca: the CA to trust, default the
// system's; --tls-cert/--tls-key: a client certificate for mutual TLS), and --token-file
// holds the gateway's own bearer token (its first word). Browsers: with --require-token a
// browser's WebSocket (/ws?token=TOKEN; the page takes it from its #token= fragment) is
// admitted only when ligatured accepts that token, and the browser's calls carry it, so each
// user has the roles of their own token. Without --require-token every browser's calls carry
// the gateway's own token (or none).

const fs = require('fs');
const http = require('http');
const https = require('https');
const path = require('path');
const { WebSocketServer } = require('ws');
const { connect, call, bearerMetadata, isToken, DEFAULT_PROTO_DIR } = require('./grpc_clients');
const { makeRoutes, serveStatic } = require('./static_files');
const { ViewerSession } = require('./viewer_session');

const USAGE = `usage: node gateway/main.js [--ligatured HOST:PORT] [--listen HOST:PORT] [--frames HOST:PORT] [--proto-dir DIR]
  [--tls [--tls-ca FILE] [--tls-cert FILE --tls-key FILE]] [--token-file FILE]
  [--require-token] [--https-cert FILE --https-key FILE]`;

function parseArgs(argv) {
  const options = { ligatured: '127.0.0.1:50051', listen: '127.0.0.1:8080', protoDir: DEFAULT_PROTO_DIR,
                    tls: false, requireToken: false };
  const names = { '--ligatured': 'ligatured', '--listen': 'listen', '--frames': 'frames', '--proto-dir': 'protoDir',
                  '--tls-ca': 'ca', '--tls-cert': 'cert', '--tls-key': 'key',
                  '--token-file': 'tokenFile', '--https-cert': 'httpsCert', '--https-key': 'httpsKey' };
  const switches = { '--tls': 'tls', '--require-token': 'requireToken' };
  for (let i = 0; i < argv.length; i++) {
    let [flag, value] = argv[i].split(/=(.*)/s, 2);
    if (flag === '--help' || flag === '-h') {
      console.log(USAGE);
      process.exit(0);
    }
    if (flag in switches) {
      if (value !== undefined) throw new Error(`${flag} takes no value`);
      options[switches[flag]] = true;
      continue;
    }
    if (!(flag in names)) throw new Error(`unknown flag ${flag}`);
    if (value === undefined) value = argv[++i];
    if (value === undefined) throw new Error(`${flag} needs a value`);
    options[names[flag]] = value;
  }
  if (!options.httpsCert !== !options.httpsKey) throw new Error('--https-cert and --https-key go together');
  return options;
}

// The gateway's own token: the first word of --token-file.
function readOwnToken(file) {
  let text;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    throw new Error(`--token-file: cannot read ${file}: ${e.code || e.message}`);
  }
  const token = text.trim().split(/\s+/)[0];
  if (!isToken(token)) throw new Error(`--token-file: ${file} holds no token`);
  return token;
}

function readFileOrThrow(file, flag) {
  try {
    return fs.readFileSync(file);
  } catch (e) {
    throw new Error(`${flag}: cannot read ${file}: ${e.code || e.message}`);
  }
}

// Decides whether a browser's WebSocket is admitted, and with which metadata its calls go.
// With --require-token: the token of /ws?token=TOKEN, checked by a ListWorlds call with it
// (ligatured is the one that knows the tokens). Answers cb(ok, httpCode, message).
function admit(options, clients, ownMetadata, req, cb) {
  if (!options.requireToken) {
    req.ligatureMetadata = ownMetadata;
    cb(true);
    return;
  }
  let token = null;
  try {
    token = new URL(req.url, 'http://gateway').searchParams.get('token');
  } catch (e) {
    token = null;
  }
  if (!isToken(token)) {
    cb(false, 401, 'a bearer token is required (/ws?token=TOKEN)');
    return;
  }
  const metadata = bearerMetadata(token);
  call(clients.world, 'ListWorlds', { page_size: 1 }, 10, metadata).then(() => {
    req.ligatureMetadata = metadata;
    cb(true);
  }, (err) => {
    if (err.code === 16) cb(false, 401, 'token refused by ligatured');  // UNAUTHENTICATED
    else cb(false, 502, `ligatured: ${err.details || err.message}`);
  });
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
  let clients;
  let ownMetadata;
  let httpsOptions = null;
  try {
    ownMetadata = options.tokenFile ? bearerMetadata(readOwnToken(options.tokenFile)) : undefined;
    clients = connect(options.ligatured, options.protoDir,
                      { tls: options.tls, ca: options.ca, cert: options.cert, key: options.key },
                      undefined, options.frames);
    if (options.httpsCert) {
      httpsOptions = { cert: readFileOrThrow(options.httpsCert, '--https-cert'),
                       key: readFileOrThrow(options.httpsKey, '--https-key') };
    }
  } catch (e) {
    console.error(`ligature-web: ${e.message}`);
    process.exit(2);
  }
  const routes = makeRoutes(path.resolve(__dirname, '..'));
  const handler = (req, res) => serveStatic(routes, req, res);
  let server;
  try {
    server = httpsOptions ? https.createServer(httpsOptions, handler) : http.createServer(handler);
  } catch (e) {
    console.error(`ligature-web: --https-cert/--https-key: ${e.message}`);
    process.exit(2);
  }
  const wss = new WebSocketServer({
    server, path: '/ws', maxPayload: 1024 * 1024,
    verifyClient: (info, cb) => admit(options, clients, ownMetadata, info.req, cb),
  });
  wss.on('connection', (ws, req) =>
    new ViewerSession(ws, { ...clients, metadata: req.ligatureMetadata }));

  const { host, port } = splitHostPort(options.listen);
  server.listen(port, host, () => {
    const bound = server.address();
    const shown = bound.family === 'IPv6' ? `[${bound.address}]` : bound.address;
    const scheme = httpsOptions ? 'https' : 'http';
    console.log(`ligature-web: serving on ${scheme}://${shown}:${bound.port}/ (ligatured ${options.ligatured}` +
                `${options.frames ? `, frames from ${options.frames}` : ''}` +
                `${options.tls ? ', TLS' : ''}${options.requireToken ? ', browsers need a token' : ''})`);
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
