// Shapes of the OCI image and distribution specs that this library reads and writes.

export interface Descriptor {
  mediaType: string;
  size: number;
  digest: string;
  annotations?: Record<string, string>;
  artifactType?: string;
  platform?: { architecture: string; os: string; variant?: string };
}

export interface ImageManifest {
  schemaVersion: 2;
  mediaType?: string;
  artifactType?: string;
  config: Descriptor;
  layers: Descriptor[];
  annotations?: Record<string, string>;
}

export interface ImageIndex {
  schemaVersion: 2;
  mediaType?: string;
  manifests: Descriptor[];
  annotations?: Record<string, string>;
}

/** A manifest as served: the raw bytes are what the digest is computed over. */
export interface FetchedManifest {
  digest: string;
  mediaType: string;
  bytes: Buffer;
}

/** A parsed `host/repository[:tag][@digest]` reference. */
export interface Reference {
  /** Registry host with optional port, e.g. `127.0.0.1:5000` or `index.docker.io`. */
  registry: string;
  /** Repository path, e.g. `library/nginx`. */
  repository: string;
  tag?: string;
  digest?: string;
}

/** Credentials for one registry. */
export type Credentials =
  | { kind: 'anonymous' }
  | { kind: 'basic'; username: string; password: string }
  /** A registry bearer token used as is (Timoni `--creds` without a colon). */
  | { kind: 'token'; token: string }
  /** An OAuth2 refresh token (docker `identitytoken`) exchanged at the token endpoint. */
  | { kind: 'identityToken'; token: string; username?: string };

/** Where credentials come from: a fixed value or a lookup by registry host. */
export type CredentialSource = Credentials | ((registry: string) => Credentials | Promise<Credentials>);
