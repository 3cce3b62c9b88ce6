import { Inject, Injectable } from '@nestjs/common';
import { Clock } from '../common/clock';
import { ForbiddenError, UnauthorizedError, UnavailableError } from '../common/errors';
import { HUB_CONFIG } from '../config/config.module';
import type { HubConfig } from '../config/hub-config';
import { OidcBindingsService } from './oidc-bindings.service';
import { identityOf, OidcClaimsError, type OidcIdentity, principalOf, sameRights } from './oidc-principal';
import { OidcProviderUnavailableError, OidcTokenError, OidcTokenVerifier } from './oidc-verifier';
import type { Principal } from './roles';

/** Groups a refusal names at most (a token may list a thousand). */
const GROUPS_IN_MESSAGE = 10;

/** Bearer tokens from the OpenID provider, turned into principals through the claim bindings. */
@Injectable()
export class OidcAuthenticator {
  private readonly verifier: OidcTokenVerifier | undefined;
  /** what each principal was made from, so a live stream can ask again */
  private readonly identities = new WeakMap<Principal, OidcIdentity>();

  constructor(
    @Inject(HUB_CONFIG) private readonly config: HubConfig,
    private readonly clock: Clock,
    private readonly bindings: OidcBindingsService,
  ) {
    this.verifier = config.oidc ? new OidcTokenVerifier(config.oidc, () => clock.now()) : undefined;
  }

  /** The provider's discovered metadata (the page's sign-in uses it); undefined when single sign-on is off. */
  provider(): Promise<import('openid-client').Configuration> | undefined {
    return this.verifier?.provider();
  }

  /** Whether this bearer is the provider's to judge (a JWT its issuer signed); static tokens never are. */
  handles(token: string): boolean {
    return this.verifier?.issued(token) ?? false;
  }

  async authenticate(token: string): Promise<Principal> {
    const verifier = this.verifier!;
    let identity: OidcIdentity;
    try {
      identity = identityOf(await verifier.verify(token), this.config.oidc!.groupsClaim);
    } catch (err) {
      if (err instanceof OidcTokenError || err instanceof OidcClaimsError) throw new UnauthorizedError(err.message);
      if (err instanceof OidcProviderUnavailableError) throw new UnavailableError(err.message, { cause: err });
      throw err;
    }
    const principal = principalOf(identity, (await this.bindings.index()).matching(identity));
    if (!principal) {
      const groups = identity.groups.slice(0, GROUPS_IN_MESSAGE).map((g) => JSON.stringify(g)).join(', ');
      const more = identity.groups.length > GROUPS_IN_MESSAGE ? ` and ${identity.groups.length - GROUPS_IN_MESSAGE} more` : '';
      throw new ForbiddenError(
        `"${identity.name}" signed in, but neither subject ${JSON.stringify(identity.subject)} nor groups [${groups}${more}] have a binding on this hub; an admin binds them with POST /api/v1/oidc-bindings`,
      );
    }
    this.identities.set(principal, identity);
    return principal;
  }

  /** Whether a signed-in person's access still holds as it did: token unexpired, and the bindings give the same rights. */
  async stillValid(principal: Principal): Promise<boolean> {
    const identity = this.identities.get(principal);
    if (!identity || identity.expiresAt <= this.clock.now().getTime()) return false;
    const now = principalOf(identity, (await this.bindings.index()).matching(identity));
    return now !== undefined && sameRights(now, principal);
  }
}
