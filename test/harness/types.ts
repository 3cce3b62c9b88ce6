// What the harness hands to tests: endpoints and credentials of real services.
// Jest's global setup puts it, as JSON, in the FLOTILLA_HARNESS environment variable.

export interface PostgresEndpoint {
  /** postgres://user:password@127.0.0.1:port/database */
  url: string;
  host: string;
  port: number;
  user: string;
  password: string;
  database: string;
}

export interface RegistryEndpoint {
  /** host:port, without scheme: registries are addressed like `127.0.0.1:5000/repo` */
  host: string;
  /** http://host:port */
  url: string;
  /** set on the instance that requires htpasswd basic auth */
  username?: string;
  password?: string;
}

export interface KubeIdentity {
  /** user name the API server knows this identity by */
  user: string;
  groups: string[];
  /** static bearer token */
  token: string;
}

/** An identity that authenticates with a client certificate instead of a token. */
export interface KubeCertIdentity {
  user: string;
  groups: string[];
  /** PEM */
  clientCertificateData: string;
  /** PEM */
  clientKeyData: string;
}

export interface KubeEndpoint {
  /** https://127.0.0.1:port */
  server: string;
  /** PEM of the CA that signed the serving certificate */
  caData: string;
  /** version reported by /version, e.g. v1.36.0 */
  version: string;
  /** member of system:masters */
  admin: KubeIdentity;
  /** authenticated but granted nothing by RBAC */
  unprivileged: KubeIdentity;
  /** member of system:masters, by client certificate */
  certAdmin: KubeCertIdentity;
}

export interface HarnessEnv {
  postgres: PostgresEndpoint;
  registry: RegistryEndpoint;
  registryAuth: RegistryEndpoint & { username: string; password: string };
  kube: KubeEndpoint;
}

/** A started service: what it exposes and how to stop it. */
export interface RunningService<T> {
  endpoint: T;
  logFile: string;
  stop(): Promise<void>;
}
