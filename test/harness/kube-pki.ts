import { execFile } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Files the API server needs for TLS and service account tokens. */
export interface KubePki {
  caCert: string;
  /** the CA's private key: the controller manager signs certificate requests with it */
  caKey: string;
  /** PEM of caCert */
  caData: string;
  servingCert: string;
  servingKey: string;
  serviceAccountKey: string;
  serviceAccountPub: string;
}

/** PEM of a client certificate the API server's client CA signed. */
export interface ClientCertificate {
  certData: string;
  keyData: string;
}

async function openssl(dir: string, args: string[]): Promise<void> {
  try {
    await run('openssl', args, { cwd: dir });
  } catch (err) {
    const stderr = (err as { stderr?: string }).stderr ?? '';
    throw new Error(`openssl ${args[0]} failed in ${dir}: ${stderr.trim()}`, { cause: err });
  }
}

/** A throwaway CA, a serving certificate for 127.0.0.1 and a service account key pair, written into `dir`. */
export async function writeKubePki(dir: string): Promise<KubePki> {
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  await openssl(dir, [
    'req', '-x509', ...ec, '-keyout', 'ca.key', '-out', 'ca.crt', '-days', '7', '-subj', '/CN=flotilla-test-ca',
    '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign',
  ]);
  await openssl(dir, ['req', '-new', ...ec, '-keyout', 'apiserver.key', '-out', 'apiserver.csr', '-subj', '/CN=kube-apiserver']);
  writeFileSync(
    join(dir, 'apiserver.ext'),
    [
      'subjectAltName=IP:127.0.0.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc',
      'extendedKeyUsage=serverAuth',
      'keyUsage=critical,digitalSignature,keyEncipherment',
      '',
    ].join('\n'),
  );
  await openssl(dir, [
    'x509', '-req', '-in', 'apiserver.csr', '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial',
    '-days', '7', '-extfile', 'apiserver.ext', '-out', 'apiserver.crt',
  ]);

  // ES256 keys sign service account tokens (TokenRequest).
  const sa = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  writeFileSync(join(dir, 'sa.key'), sa.privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
  writeFileSync(join(dir, 'sa.pub'), sa.publicKey.export({ type: 'spki', format: 'pem' }));

  return {
    caCert: join(dir, 'ca.crt'),
    caKey: join(dir, 'ca.key'),
    caData: readFileSync(join(dir, 'ca.crt'), 'utf8'),
    servingCert: join(dir, 'apiserver.crt'),
    servingKey: join(dir, 'apiserver.key'),
    serviceAccountKey: join(dir, 'sa.key'),
    serviceAccountPub: join(dir, 'sa.pub'),
  };
}

/**
 * A client certificate from the same CA (the API server trusts it as its
 * client CA): CN is the user name, each O a group.
 */
export async function writeClientCertificate(dir: string, user: string, groups: string[]): Promise<ClientCertificate> {
  const base = `client-${user}`;
  const subject = `/CN=${user}${groups.map((g) => `/O=${g}`).join('')}`;
  await openssl(dir, [
    'req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes',
    '-keyout', `${base}.key`, '-out', `${base}.csr`, '-subj', subject,
  ]);
  writeFileSync(join(dir, `${base}.ext`), 'extendedKeyUsage=clientAuth\nkeyUsage=critical,digitalSignature\n');
  await openssl(dir, [
    'x509', '-req', '-in', `${base}.csr`, '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial',
    '-days', '7', '-extfile', `${base}.ext`, '-out', `${base}.crt`,
  ]);
  return { certData: readFileSync(join(dir, `${base}.crt`), 'utf8'), keyData: readFileSync(join(dir, `${base}.key`), 'utf8') };
}
