#!/bin/bash
# Makes test certificates in DIR with openssl:
#   ca.pem, ca.key          a certificate authority
#   server.pem, server.key  the server, for localhost and 127.0.0.1, signed by the CA
#   client.pem, client.key  a client (mutual TLS), signed by the CA
# Valid for two days; for tests only (unencrypted keys).
set -euo pipefail
if [[ $# -ne 1 ]]; then
  echo "usage: $0 DIR" >&2
  exit 2
fi
dir=$1
mkdir -p "$dir"
cd "$dir"
quiet() { "$@" >/dev/null 2>openssl.log || { cat openssl.log >&2; exit 1; }; }

quiet openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.pem -days 2 \
  -subj "/CN=Ligature test CA" -addext basicConstraints=critical,CA:TRUE \
  -addext keyUsage=critical,keyCertSign,cRLSign

# sign NAME SUBJECT EXTENSIONS: NAME.key and NAME.pem, signed by the CA.
sign() {
  quiet openssl req -newkey rsa:2048 -nodes -keyout "$1.key" -out "$1.csr" -subj "$2"
  printf '%s\n' "$3" > "$1.ext"
  quiet openssl x509 -req -in "$1.csr" -CA ca.pem -CAkey ca.key -CAcreateserial \
    -out "$1.pem" -days 2 -extfile "$1.ext"
  rm -f "$1.csr" "$1.ext"
}
sign server /CN=localhost "subjectAltName=DNS:localhost,IP:127.0.0.1
extendedKeyUsage=serverAuth"
sign client /CN=ligature-test-client "extendedKeyUsage=clientAuth"
rm -f openssl.log ca.srl
