import { isLoopbackHost } from '@flotilla/egress';
import { applyDecorators } from '@nestjs/common';
import { registerDecorator } from 'class-validator';
import { IsHttpUrl } from '../common/validators';

export const WEBHOOK_URL_MESSAGE = 'must be an https:// URL (http:// only to a loopback address): the webhook URL is a secret and never crosses a network in clear';

/** Plain http only to this machine: anywhere else the URL, which is the credential, would travel in clear. */
function secureEnough(value: unknown): boolean {
  if (typeof value !== 'string') return true;
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || (url.protocol === 'http:' && isLoopbackHost(url.hostname));
  } catch {
    return true; // IsHttpUrl reports a malformed URL
  }
}

/** A chat webhook URL: an http(s) URL of at most 2048 characters with no user info, over https unless to loopback. */
export function IsWebhookUrl(): PropertyDecorator {
  return applyDecorators(IsHttpUrl(), (target: object, propertyName: string | symbol) =>
    registerDecorator({ name: 'isWebhookUrl', target: target.constructor, propertyName: String(propertyName), options: { message: WEBHOOK_URL_MESSAGE }, validator: { validate: secureEnough } }),
  );
}
