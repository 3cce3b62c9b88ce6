import { Injectable } from '@nestjs/common';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { ClusterConnection } from './kubeconfig';

export class KubeUnreachableError extends Error {
  constructor(server: string, reason: string, options?: { cause?: unknown }) {
    super(`${server}: ${reason}`, options);
    this.name = 'KubeUnreachableError';
  }
}

/** The hub's calls to remote API servers. */
@Injectable()
export class KubeRepository {
  /** GET /version: the server's gitVersion, or KubeUnreachableError saying why not. */
  version(conn: ClusterConnection, timeoutMs = 5000): Promise<string> {
    const url = new URL('/version', conn.server);
    const headers: Record<string, string> = { accept: 'application/json' };
    if ('token' in conn.auth) headers.authorization = `Bearer ${conn.auth.token}`;
    const tls =
      url.protocol === 'https:'
        ? {
            ca: conn.caData,
            rejectUnauthorized: !conn.insecureSkipTLSVerify,
            cert: 'clientCertificateData' in conn.auth ? conn.auth.clientCertificateData : undefined,
            key: 'clientKeyData' in conn.auth ? conn.auth.clientKeyData : undefined,
          }
        : {};
    const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
    return new Promise((resolve, reject) => {
      const req = request(url, { method: 'GET', headers, timeout: timeoutMs, ...tls }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (body += d.length + body.length < 1 << 20 ? d : ''));
        res.on('end', () => {
          if (res.statusCode !== 200) {
            const hint = res.statusCode === 401 ? ' (credentials rejected)' : res.statusCode === 403 ? ' (not allowed to read /version)' : '';
            return reject(new KubeUnreachableError(conn.server, `GET /version answered ${res.statusCode}${hint}`));
          }
          try {
            const v = JSON.parse(body) as { gitVersion?: unknown };
            if (typeof v.gitVersion !== 'string') throw new Error('no gitVersion');
            resolve(v.gitVersion);
          } catch (err) {
            reject(new KubeUnreachableError(conn.server, 'GET /version did not return a Kubernetes version', { cause: err }));
          }
        });
      });
      req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
      req.on('error', (err: NodeJS.ErrnoException) => reject(new KubeUnreachableError(conn.server, err.code ? `${err.code}: ${err.message}` : err.message, { cause: err })));
      req.end();
    });
  }
}
