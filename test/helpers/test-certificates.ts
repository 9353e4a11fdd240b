/**
 * A private CA and a certificate it signed for 127.0.0.1, made by the `openssl` command in a
 * folder of the test's own: what the TLS tests give redis-server and the gateway (as
 * `REDIS_TLS_CA_FILE`). Short-lived and never trusted elsewhere.
 */
import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';

export interface TestCertificates {
  /** The CA's certificate file (PEM). */
  caFile: string;
  /** The CA's certificate (PEM). */
  ca: string;
  /** The server's certificate and key files (PEM), for 127.0.0.1. */
  certFile: string;
  keyFile: string;
}

const EC_KEY = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

export async function makeTestCertificates(dir: string): Promise<TestCertificates> {
  const file = (name: string) => join(dir, name);
  const openssl = (...args: string[]) => promisify(execFile)('openssl', args);
  await openssl('req', '-x509', ...EC_KEY, '-keyout', file('ca.key'), '-out', file('ca.crt'), '-days', '2', '-subj', '/CN=vending-graph test CA');
  await openssl('req', ...EC_KEY, '-keyout', file('redis.key'), '-out', file('redis.csr'), '-subj', '/CN=127.0.0.1');
  // Redis presents the same certificate when it connects out (replication, cluster bus).
  await writeFile(file('ext.cnf'), 'subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth,clientAuth\n');
  await openssl('x509', '-req', '-in', file('redis.csr'), '-CA', file('ca.crt'), '-CAkey', file('ca.key'), '-CAcreateserial',
    '-out', file('redis.crt'), '-days', '2', '-extfile', file('ext.cnf'));
  return { caFile: file('ca.crt'), ca: await readFile(file('ca.crt'), 'utf8'), certFile: file('redis.crt'), keyFile: file('redis.key') };
}

/** redis-server's (or redis-sentinel's) arguments to listen on `port` over TLS only, clients unauthenticated by certificate. */
export function tlsServerArgs(certificates: TestCertificates, port: number): string[] {
  return ['--port', '0', '--tls-port', String(port), '--tls-cert-file', certificates.certFile, '--tls-key-file', certificates.keyFile,
    '--tls-ca-cert-file', certificates.caFile, '--tls-auth-clients', 'no'];
}
