'use strict';
// The ligature.v1 gRPC clients, from the .proto files loaded at run time (nothing generated
// is committed). Field names keep the proto's snake_case; uint64 ticks become Numbers.

const fs = require('fs');
const path = require('path');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');

const DEFAULT_PROTO_DIR = path.resolve(__dirname, '..', '..', '..', 'proto');

// Loads every proto/ligature/v1/*.proto under protoDir and returns the package object.
function loadLigaturePackage(protoDir = DEFAULT_PROTO_DIR) {
  const dir = path.join(protoDir, 'ligature', 'v1');
  const files = fs.readdirSync(dir).filter((f) => f.endsWith('.proto'))
    .map((f) => path.join('ligature', 'v1', f));
  if (files.length === 0) throw new Error(`no .proto files under ${dir}`);
  const definition = protoLoader.loadSync(files, {
    includeDirs: [protoDir],
    keepCase: true,
    longs: Number,
    enums: String,
    defaults: true,
    oneofs: true,
  });
  return grpc.loadPackageDefinition(definition).ligature.v1;
}

// One client per service the gateway uses, sharing a single channel to `address`.
function connect(address, protoDir = DEFAULT_PROTO_DIR) {
  const pkg = loadLigaturePackage(protoDir);
  const credentials = grpc.credentials.createInsecure();
  const options = { 'grpc.max_receive_message_length': 64 * 1024 * 1024 };
  const world = new pkg.WorldService(address, credentials, options);
  const channelOverride = world.getChannel();
  const shared = { ...options, channelOverride };
  return {
    world,
    session: new pkg.SessionService(address, credentials, shared),
    scene: new pkg.SceneService(address, credentials, shared),
    close() { world.close(); },
  };
}

// A unary call as a promise, with a deadline in seconds.
function call(client, method, request, timeoutS = 10) {
  return new Promise((resolve, reject) => {
    const deadline = new Date(Date.now() + timeoutS * 1000);
    client[method](request, { deadline }, (err, response) => {
      if (err) reject(err); else resolve(response);
    });
  });
}

module.exports = { loadLigaturePackage, connect, call, DEFAULT_PROTO_DIR };
