// The inbound endpoint, plain node:http so the hub and the standalone agent
// serve the same code on their own ports. Order of checks: method, size,
// authentication (before anything is parsed), event, repository, replay;
// only an event that passes all of them changes anything.
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { readArtifactPublished } from './artifact-published';
import { CdeventsRequestError } from './errors';
import { fromHttpMessage } from './http-binding';
import { isAuthentic, SIGNATURE_HEADER } from './signature';
import type { ArtifactPublished } from './types';
import { readBoundedBody } from './body-read';

/** How a request ended, for metrics and logs. */
export type ReceiverOutcome = 'accepted' | 'duplicate' | 'unauthorized' | 'rejected' | 'error';

/** Where the receiver learns about Projects and starts their runs; the hub and the agent each provide one. */
export interface ReceiverBackend {
  /** The Projects whose source is the event's repository. */
  projectsFor(event: ArtifactPublished): Promise<MatchedProject[]>;
  /** Records the event's (source, id) once; false when it was seen before. */
  firstDelivery(event: ArtifactPublished): Promise<boolean>;
  /** Makes those Projects resolve their tag now; must not wait for the runs. */
  trigger(projects: MatchedProject[], event: ArtifactPublished): void;
}

/** A Project an event names: `id` for the backend, `name` for the answer. */
export interface MatchedProject {
  id: string;
  name: string;
}

export interface ReceiverOptions {
  /** shared secrets; a request must be signed with (or bear) one of them */
  secrets: readonly string[];
  /** largest body accepted, in bytes */
  maxBodyBytes: number;
  backend: ReceiverBackend;
  /** told how every request ended */
  observe?: (outcome: ReceiverOutcome, detail: { status: number; message: string; event?: ArtifactPublished }) => void;
}

export function defaultReceiverLimits(): Pick<ReceiverOptions, 'maxBodyBytes'> {
  // the largest conformance examples are under 2 KiB; room for links and custom data
  return { maxBodyBytes: 64 * 1024 };
}

/** The request listener of the receiver: POST / (or any path) with one CDEvent. */
export function cdeventsReceiver(options: ReceiverOptions): RequestListener {
  if (options.secrets.length === 0) throw new Error('the CDEvents receiver needs at least one shared secret');
  return (req, res) => {
    handle(options, req).then(
      ({ status, body, outcome, event }) => {
        options.observe?.(outcome, { status, message: String(body.message ?? ''), event });
        reply(res, status, body);
      },
      (err: unknown) => {
        const known = err instanceof CdeventsRequestError;
        const status = known ? err.status : 500;
        const message = known ? err.message : 'the receiver failed; the event was not taken, send it again';
        options.observe?.(status === 401 ? 'unauthorized' : known ? 'rejected' : 'error', { status, message: known ? message : String(err instanceof Error ? err.message : err) });
        // a body left unread would keep the connection busy; close instead
        if (!req.complete) res.setHeader('connection', 'close');
        reply(res, status, { error: statusText(status), message });
      },
    );
  };
}

interface Handled {
  status: number;
  body: Record<string, unknown>;
  outcome: ReceiverOutcome;
  event: ArtifactPublished;
}

async function handle(o: ReceiverOptions, req: IncomingMessage): Promise<Handled> {
  if (req.method !== 'POST') throw new CdeventsRequestError(405, `${req.method} is not accepted: POST one CDEvent`);
  const body = await readBoundedBody(req, o.maxBodyBytes);
  const signature = header(req, SIGNATURE_HEADER);
  if (!isAuthentic(o.secrets, body, signature, header(req, 'authorization'))) {
    throw new CdeventsRequestError(401, signature === undefined && header(req, 'authorization') === undefined ? `missing authentication: sign the body (${SIGNATURE_HEADER}: sha256=<hex HMAC>) or send Authorization: Bearer <secret>` : 'bad signature or token');
  }
  const event = readArtifactPublished(fromHttpMessage(req.headers, body.toString('utf8')));
  const projects = await o.backend.projectsFor(event);
  if (projects.length === 0) {
    throw new CdeventsRequestError(422, `no Project has repository ${event.artifact.repository} as its source; nothing to reconcile`);
  }
  if (!(await o.backend.firstDelivery(event))) {
    return { status: 200, body: { duplicate: true, message: `event ${event.id} from ${event.source} was already received; ignored` }, outcome: 'duplicate', event };
  }
  o.backend.trigger(projects, event);
  return { status: 202, body: { projects: projects.map((p) => p.name), message: `${projects.length} Project(s) resolve ${event.artifact.repository} now` }, outcome: 'accepted', event };
}

function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

function reply(res: ServerResponse, status: number, body: Record<string, unknown>): void {
  if (res.headersSent) return;
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

function statusText(status: number): string {
  return { 400: 'Bad Request', 401: 'Unauthorized', 404: 'Not Found', 405: 'Method Not Allowed', 413: 'Payload Too Large', 415: 'Unsupported Media Type', 422: 'Unprocessable Entity' }[status] ?? 'Internal Server Error';
}
