import { Global, Injectable, Module, type OnApplicationShutdown } from '@nestjs/common';
import { EgressPolicy, egressFetch, type EgressFetch } from '@flotilla/egress';
import { HUB_CONFIG } from '../config/config.module';
import type { HubConfig } from '../config/hub-config';

/**
 * The hub's outbound HTTP: every client that reaches an address an API user named
 * (API servers, registries and their token realms, CDEvents sinks) connects through
 * the egress policy, checked on the address each socket connects to.
 */
@Injectable()
export class HubEgress implements OnApplicationShutdown {
  /** fetch for registries and their token realms (the registry client decides http vs https) */
  private readonly plain: EgressFetch;
  /** fetch for requests that carry a secret (a sink's header): plain http only to loopback */
  private readonly withCredentials: EgressFetch;

  constructor(readonly policy: EgressPolicy) {
    this.plain = egressFetch(policy);
    this.withCredentials = egressFetch(policy, { plainHttpLoopbackOnly: true });
  }

  get fetch(): typeof fetch {
    return this.plain.fetch;
  }

  get credentialFetch(): typeof fetch {
    return this.withCredentials.fetch;
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all([this.plain.close(), this.withCredentials.close()]);
  }
}

@Global()
@Module({
  providers: [
    { provide: EgressPolicy, inject: [HUB_CONFIG], useFactory: (config: HubConfig) => new EgressPolicy(config.egress) },
    { provide: HubEgress, inject: [EgressPolicy], useFactory: (policy: EgressPolicy) => new HubEgress(policy) },
  ],
  exports: [EgressPolicy, HubEgress],
})
export class EgressModule {}
