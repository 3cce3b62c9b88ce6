import { HTTP_URL, HTTP_URL_MESSAGE, IsHttpUrl, SECRET_URL } from '../common/validators';

export const WEBHOOK_URL_MESSAGE = 'must be an https:// URL (http:// only to a loopback address): the webhook URL is a secret and never crosses a network in clear';

/**
 * A chat webhook URL (see SECRET_URL): an http(s) URL field held to https
 * unless to loopback; the message says which rule a value broke.
 */
export function IsWebhookUrl(): PropertyDecorator {
  return IsHttpUrl({ name: 'isWebhookUrl', pattern: SECRET_URL, message: (value) => (typeof value === 'string' && HTTP_URL.test(value) ? WEBHOOK_URL_MESSAGE : HTTP_URL_MESSAGE) });
}
