import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { readFileSync } from 'node:fs';
import type { Logger } from 'pino';
import { HUB_CONFIG } from '../config/config.module';
import type { HubConfig } from '../config/hub-config';
import { DecryptionError } from '../crypto/crypto.repository';
import { HUB_LOGGER } from '../logging/logging.module';
import { AgentCaRepository } from './agent-ca.repository';
import { BadAgentCa, CertificateAuthority } from './certificate-authority';

/**
 * The agents' CA of this hub, ready before anything serves: the operator's
 * (FLOTILLA_AGENT_CA_CERT_FILE and FLOTILLA_AGENT_CA_KEY_FILE, read by every
 * replica) or the one in the database, made by the first replica that
 * started.
 */
@Injectable()
export class AgentCa implements OnModuleInit {
  private authority: CertificateAuthority | undefined;

  constructor(
    private readonly repo: AgentCaRepository,
    @Inject(HUB_CONFIG) private readonly config: HubConfig,
    @Inject(HUB_LOGGER) private readonly logger: Logger,
  ) {}

  get ca(): CertificateAuthority {
    if (!this.authority) throw new Error('the agent CA is not loaded yet');
    return this.authority;
  }

  /** PEM of the CA certificate: what agents trust the hub with (the install manifest carries it). */
  get certPem(): string {
    return this.ca.certPem;
  }

  async onModuleInit(): Promise<void> {
    const { caCertFile, caKeyFile } = this.config.agents;
    if (caCertFile && caKeyFile) {
      const read = (file: string, what: string) => {
        try {
          return readFileSync(file, 'utf8');
        } catch (err) {
          throw new BadAgentCa(`cannot read the ${what} ${file}`, { cause: err });
        }
      };
      this.authority = await CertificateAuthority.load(read(caCertFile, 'certificate'), read(caKeyFile, 'key'));
      this.logger.info({ file: caCertFile }, 'agent CA from the operator\'s files');
      return;
    }
    const stored = await this.loadOrCreate().catch((err: unknown) => {
      if (!(err instanceof DecryptionError)) throw err;
      // the usual cause: a replica that generated its own keys instead of sharing the others'
      throw new BadAgentCa(`cannot open the agent CA's key stored in the database (${err.message}); every replica needs the same FLOTILLA_ENCRYPTION_KEYS`, { cause: err });
    });
    this.authority = await CertificateAuthority.load(stored.certPem, stored.keyPem);
  }

  private async loadOrCreate(): Promise<{ certPem: string; keyPem: string }> {
    return (await this.repo.load()) ?? (await this.repo.insertOrLoad(await CertificateAuthority.create()));
  }
}
