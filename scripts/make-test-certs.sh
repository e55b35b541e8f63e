#!/usr/bin/env bash
# Test certificates for the TLS tests (test/faults/cassandra-tls.test.ts,
# test/integration/cache/redis-tls.test.ts), written into the folder given (created if missing):
#   ca.pem, ca.key            a test CA
#   other-ca.pem              an unrelated CA (a client trusting only it must refuse the servers)
#   server.pem, server.key    signed by ca.pem, for 127.0.0.1 and localhost (serverAuth)
#   client.pem, client.key    signed by ca.pem (clientAuth): the client certificate
#   server-keystore.jks       server.pem + server.key, made with keytool (Cassandra's keystore)
#   truststore.jks            ca.pem, made with keytool (Cassandra checks client certificates)
# Store passwords: $STORE_PASSWORD (default regrid-test). Never for production: keys are unencrypted.
set -euo pipefail

DIR="${1:?usage: scripts/make-test-certs.sh <folder>}"
PASS="${STORE_PASSWORD:-regrid-test}"
DAYS=30
mkdir -p "$DIR"
cd "$DIR"

ca() { # name subject
  openssl req -x509 -newkey rsa:2048 -nodes -sha256 -days "$DAYS" -subj "/CN=$2" \
    -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign \
    -keyout "$1.key" -out "$1.pem" 2>/dev/null
}
leaf() { # name subject extendedKeyUsage [subjectAltName]
  openssl req -newkey rsa:2048 -nodes -sha256 -subj "/CN=$2" -keyout "$1.key" -out "$1.csr" 2>/dev/null
  {
    echo "basicConstraints=CA:FALSE"
    echo "keyUsage=critical,digitalSignature,keyEncipherment"
    echo "extendedKeyUsage=$3"
    [[ -n "${4:-}" ]] && echo "subjectAltName=$4"
  } >"$1.ext"
  openssl x509 -req -sha256 -days "$DAYS" -in "$1.csr" -CA ca.pem -CAkey ca.key -CAcreateserial \
    -extfile "$1.ext" -out "$1.pem" 2>/dev/null
  rm -f "$1.csr" "$1.ext"
}

ca ca "regrid test CA"
ca other-ca "some other CA"
rm -f other-ca.key
leaf server localhost serverAuth,clientAuth "IP:127.0.0.1,DNS:localhost"
leaf client "regrid test client" clientAuth

# Cassandra reads a Java keystore: keytool imports the PEM pair (by way of a PKCS12 bundle).
rm -f server-keystore.jks truststore.jks
openssl pkcs12 -export -name server -in server.pem -inkey server.key -certfile ca.pem \
  -passout "pass:$PASS" -out server.p12
keytool -importkeystore -noprompt -srckeystore server.p12 -srcstoretype PKCS12 \
  -srcstorepass "$PASS" -destkeystore server-keystore.jks -deststoretype JKS \
  -deststorepass "$PASS" -destkeypass "$PASS" 2>/dev/null
keytool -importcert -noprompt -alias ca -file ca.pem -keystore truststore.jks \
  -storetype JKS -storepass "$PASS" >/dev/null 2>&1
rm -f server.p12 ca.srl
chmod 600 ./*.key
echo "test certificates in $(pwd)"
