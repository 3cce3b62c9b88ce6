// Typed errors of libs/oci. Each names the object involved (reference, digest, entry).

export class OciError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** A reference, tag or digest string that does not parse. */
export class InvalidReferenceError extends OciError {
  constructor(readonly input: string, reason: string) {
    super(`invalid OCI reference '${input}': ${reason}`);
  }
}

/** Plain HTTP to a non-loopback registry without `insecure`. */
export class InsecureRegistryError extends OciError {
  constructor(readonly registry: string) {
    super(`registry '${registry}' would be reached over plain HTTP; only loopback hosts may, unless 'insecure' is set`);
  }
}

/** A registry answered with an error status; `code` is the first distribution error code. */
export class RegistryError extends OciError {
  constructor(
    readonly method: string,
    readonly url: string,
    readonly status: number,
    readonly code: string | undefined,
    detail: string,
    options?: { cause?: unknown },
  ) {
    // Status 0: no response status applies (network failure, deadline, abort).
    super(`${method} ${url}${status ? `: ${status}` : ''}${code ? ` ${code}` : ''}${detail ? `: ${detail}` : ''}`, options);
  }
}

/** A registry request whose response, headers and whole body, was not complete within its deadline. */
export class RegistryTimeoutError extends RegistryError {
  constructor(method: string, url: string, readonly timeoutMs: number) {
    super(method, url, 0, undefined, `no complete response within the deadline of ${timeoutMs} ms`);
  }
}

/** The caller's AbortSignal ended a registry request; `cause` is the signal's reason. */
export class RegistryAbortedError extends RegistryError {
  constructor(method: string, url: string, reason: unknown) {
    super(method, url, 0, undefined, 'aborted by the caller', { cause: reason });
  }
}

/**
 * A registry response larger than allowed, refused on its Content-Length or
 * as soon as the bytes read passed the limit (never buffered whole).
 */
export class ContentTooLargeError extends OciError {
  constructor(
    /** What was asked for: a reference, blob or URL. */
    readonly what: string,
    readonly limit: number,
    /** The Content-Length the registry announced, when it did. */
    readonly offered: number | undefined,
    /** Bytes read before refusing. */
    readonly received: number,
  ) {
    const told = offered !== undefined ? `${offered} bytes offered` : `more than ${limit} bytes sent (no length announced)`;
    super(`${what}: refused, ${told}, limit ${limit} bytes`);
  }
}

/** Authentication failed (bad credentials, token endpoint refused, unknown challenge). */
export class AuthError extends OciError {
  constructor(readonly registry: string, reason: string, options?: { cause?: unknown }) {
    super(`authentication with '${registry}' failed: ${reason}`, options);
  }
}

/** Content whose sha256 does not match the digest it was asked for. */
export class DigestMismatchError extends OciError {
  constructor(readonly expected: string, readonly actual: string, readonly what: string) {
    super(`${what}: digest mismatch, expected ${expected} but content hashes to ${actual}`);
  }
}

/** A manifest that is not a Timoni artifact, or has no usable layers. */
export class ArtifactFormatError extends OciError {
  constructor(readonly reference: string, reason: string) {
    super(`artifact '${reference}': ${reason}`);
  }
}

/** A bundle pinned a module digest and the registry served another one. */
export class DigestPinMismatchError extends OciError {
  constructor(readonly reference: string, readonly pinned: string, readonly actual: string) {
    super(`module '${reference}': pinned digest ${pinned} does not match the pulled digest ${actual}`);
  }
}

/** A tar entry refused during extraction. Nothing of the archive is left on disk. */
export class UnsafeArchiveError extends OciError {
  constructor(
    readonly entry: string,
    readonly reason: 'absolute-path' | 'path-escape' | 'link-escape' | 'unsupported-type' | 'size-limit' | 'file-limit' | 'not-gzip' | 'corrupt',
    detail: string,
    options?: { cause?: unknown },
  ) {
    super(`archive entry '${entry}' refused (${reason}): ${detail}`, options);
  }
}

/** Packing a directory failed (missing source, unreadable file). */
export class PackError extends OciError {
  constructor(readonly path: string, reason: string, options?: { cause?: unknown }) {
    super(`packing '${path}' failed: ${reason}`, options);
  }
}
