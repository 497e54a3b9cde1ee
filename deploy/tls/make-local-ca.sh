#!/usr/bin/env bash
# A local CA and the pairs it signs, for the Compose files (deploy/compose*.yaml), with openssl:
#   deploy/tls/make-local-ca.sh            # writes deploy/tls/out/
#   deploy/tls/make-local-ca.sh DIR NAME…  # into DIR, the server's certificate for NAME… too
# Out: ca.pem (give it to clients: grpcurl -cacert), ca.key (keep it), server.pem and
# server.key (every replica's pair: localhost, 127.0.0.1, dawgref, replica-a/b/c, balancer and
# the names given), balancer.pem (HAProxy's: certificate and key in one file), client.pem and
# client.key (for a client when the server asks for one: --tls-client-ca). Run again to rotate
# the pairs (the CA stays); the servers read them again on their own, or at once on SIGHUP
# (docker compose kill -s HUP dawgref).
set -euo pipefail
out="${1:-$(dirname "$0")/out}"
shift || true
mkdir -p "$out"
cd "$out"
days=825
if [ ! -f ca.key ]; then
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 3650 \
    -subj "/CN=dawgref local CA" -keyout ca.key -out ca.pem \
    -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" 2>/dev/null
fi
names="DNS:localhost,IP:127.0.0.1,DNS:dawgref,DNS:replica-a,DNS:replica-b,DNS:replica-c,DNS:balancer"
for n in "$@"; do names="$names,DNS:$n"; done
issue() { # name, subjectAltName, extendedKeyUsage
  openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj "/CN=$1" \
    -keyout "$1.key" -out "$1.csr" 2>/dev/null
  printf 'subjectAltName=%s\nextendedKeyUsage=%s\n' "$2" "$3" > "$1.ext"
  openssl x509 -req -in "$1.csr" -CA ca.pem -CAkey ca.key -CAcreateserial -days "$days" \
    -extfile "$1.ext" -out "$1.pem" 2>/dev/null
  rm -f "$1.csr" "$1.ext"
}
issue server "$names" serverAuth,clientAuth
issue client "DNS:client" clientAuth
cat server.pem server.key > balancer.pem
chmod 600 ca.key server.key client.key balancer.pem
# The containers run as uid 10001 (dawgref) and haproxy's user: let them read the pairs.
chmod 644 server.key balancer.pem 2>/dev/null || true
echo "wrote $(pwd): ca.pem server.pem server.key balancer.pem client.pem client.key"
