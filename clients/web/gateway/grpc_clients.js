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

// Channel credentials from `security`: {tls, ca, cert, key} (file paths; ca defaults to the
// system's roots, cert and key go together). Throws with a plain message for a file that
// cannot be read or a combination that does not make sense.
function channelCredentials(security = {}) {
  const { tls = false, ca, cert, key } = security;
  if (!tls) {
    if (ca || cert || key) throw new Error('--tls-ca, --tls-cert and --tls-key need --tls');
    return grpc.credentials.createInsecure();
  }
  if (!cert !== !key) throw new Error('--tls-cert and --tls-key go together');
  const read = (file, flag) => {
    let data;
    try {
      data = fs.readFileSync(file);
    } catch (e) {
      throw new Error(`${flag}: cannot read ${file}: ${e.code || e.message}`);
    }
    if (!data.includes('-----BEGIN ')) throw new Error(`${flag}: ${file} holds no PEM data`);
    return data;
  };
  return grpc.credentials.createSsl(ca ? read(ca, '--tls-ca') : null,
                                    key ? read(key, '--tls-key') : null,
                                    cert ? read(cert, '--tls-cert') : null);
}

// A bearer token is one word of printable ASCII (as the server's token file has it).
function isToken(token) {
  return typeof token === 'string' && /^[\x21-\x7e]{1,4096}$/.test(token);
}

// grpc.Metadata carrying `authorization: Bearer TOKEN`, or undefined for no token.
function bearerMetadata(token) {
  if (token === undefined || token === null || token === '') return undefined;
  if (!isToken(token)) throw new Error('a token is printable ASCII without spaces');
  const metadata = new grpc.Metadata();
  metadata.set('authorization', `Bearer ${token}`);
  return metadata;
}

// The leading arguments of a streaming call: the metadata when there is any.
function withMetadata(metadata) {
  return metadata ? [metadata] : [];
}

// One client per service the gateway uses, sharing a single channel to `address`, with the
// channel credentials of `security` (see channelCredentials). `metadata` (optional) goes
// with the calls that the session code makes through this object. `framesAddress`
// (optional) is where Watch streams go instead: a viewer gateway (ligature-gateway), or
// several behind one name, serving the frames the server publishes.
function connect(address, protoDir = DEFAULT_PROTO_DIR, security = {}, metadata = undefined,
                 framesAddress = undefined) {
  const pkg = loadLigaturePackage(protoDir);
  const credentials = channelCredentials(security);
  const options = { 'grpc.max_receive_message_length': 64 * 1024 * 1024 };
  const world = new pkg.WorldService(address, credentials, options);
  const channelOverride = world.getChannel();
  const shared = { ...options, channelOverride };
  const session = new pkg.SessionService(address, credentials, shared);
  const frames = framesAddress ? new pkg.SessionService(framesAddress, credentials, options) : session;
  return {
    world,
    session,
    frames,
    scene: new pkg.SceneService(address, credentials, shared),
    asset: new pkg.AssetService(address, credentials, shared),
    query: new pkg.QueryService(address, credentials, shared),
    metadata,
    close() {
      world.close();
      if (frames !== session) frames.close();
    },
  };
}

// A unary call as a promise, with a deadline in seconds and optional grpc.Metadata.
function call(client, method, request, timeoutS = 10, metadata = undefined) {
  return new Promise((resolve, reject) => {
    const deadline = new Date(Date.now() + timeoutS * 1000);
    const callback = (err, response) => {
      if (err) reject(err); else resolve(response);
    };
    if (metadata) client[method](request, metadata, { deadline }, callback);
    else client[method](request, { deadline }, callback);
  });
}

module.exports = {
  loadLigaturePackage, connect, call, channelCredentials, bearerMetadata, isToken, withMetadata,
  DEFAULT_PROTO_DIR,
};
