// The part of `oidc-provider` (which ships no types) that the test provider
// uses. @types/oidc-provider was refused: it pulls in @types/express 5, whose
// router types break the hub's compile.
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  export interface KoaContextWithOIDC {
    path: string;
    method: string;
    req: IncomingMessage;
    res: ServerResponse;
    status: number;
    type: string;
    body: unknown;
    redirect(url: string): void;
  }

  export interface Interaction {
    uid: string;
    prompt: { name: string; details: Record<string, unknown> };
    params: Record<string, unknown>;
    session?: { accountId: string };
    grantId?: string;
  }

  export interface Grant {
    addOIDCScope(scope: string): void;
    addOIDCClaims(claims: string[]): void;
    addResourceScope(indicator: string, scope: string): void;
    save(): Promise<string>;
  }

  export interface Account {
    accountId: string;
    claims(): Record<string, unknown>;
  }

  export interface Client {
    grantTypeAllowed(grant: string): boolean;
  }

  export interface Configuration {
    clients: Array<Record<string, unknown>>;
    jwks: { keys: unknown[] };
    cookies: { keys: string[] };
    claims: Record<string, string[]>;
    scopes: string[];
    findAccount(ctx: KoaContextWithOIDC, id: string): Account | undefined | Promise<Account | undefined>;
    interactions: { url(ctx: KoaContextWithOIDC, interaction: Interaction): string };
    features: Record<string, Record<string, unknown>>;
    extraTokenClaims(ctx: KoaContextWithOIDC, token: Record<string, unknown>): Record<string, unknown> | undefined;
    /** seconds, or a function of the token (its resource server, for access tokens) */
    ttl: Record<string, number | ((ctx: KoaContextWithOIDC, token: { resourceServer?: { accessTokenTTL?: number } }) => number)>;
    issueRefreshToken(ctx: KoaContextWithOIDC, client: Client): boolean;
  }

  export default class Provider {
    static errors: { InvalidTarget: new (description?: string) => Error };
    constructor(issuer: string, configuration: Configuration);
    proxy: boolean;
    Grant: { new (init: { accountId: string; clientId: string }): Grant; find(id: string): Promise<Grant | undefined> };
    use(middleware: (ctx: KoaContextWithOIDC, next: () => Promise<void>) => Promise<void>): void;
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
    interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<Interaction>;
    interactionResult(req: IncomingMessage, res: ServerResponse, result: Record<string, unknown>, options?: { mergeWithLastSubmission?: boolean }): Promise<string>;
  }
}
