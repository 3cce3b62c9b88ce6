// A chat webhook's URL is its credential (whoever holds a Slack webhook URL
// can post to the channel): sealed like every secret, bound to its Project so
// a copied value opens nowhere else, and shown to nobody beyond scheme and host.
import type { CryptoRepository } from '../crypto/crypto.repository';
import type { SealedWebhook } from '../database/entities';
import { maskUrl } from '../projects/viewer-masking';

/** The associated data: the URL opens only for its Project. */
function webhookAad(projectId: string): string {
  return JSON.stringify(['flotilla/notification-webhook/v1', projectId]);
}

export function sealWebhook(crypto: CryptoRepository, url: string, projectId: string): SealedWebhook {
  return { shown: maskUrl(url), ...crypto.seal(url, webhookAad(projectId)) };
}

/** The URL, for the request to it only; DecryptionError when it was sealed for another Project. */
export function openWebhook(crypto: CryptoRepository, sealed: SealedWebhook, projectId: string): string {
  return crypto.open({ keyId: sealed.keyId, envelope: sealed.envelope }, webhookAad(projectId));
}

/** The same URL sealed with the current key, still bound to its Project (key rotation). */
export function resealWebhook(crypto: CryptoRepository, sealed: SealedWebhook, projectId: string): SealedWebhook {
  return { ...sealWebhook(crypto, openWebhook(crypto, sealed, projectId), projectId), shown: sealed.shown };
}
