import { applyDecorators } from '@nestjs/common';
import { IsString, MaxLength, registerDecorator } from 'class-validator';
import { hasUserInfo, HTTP_URL, HTTP_URL_MESSAGE, NoUrlCredentials, SECRET_URL } from '../common/validators';

export const WEBHOOK_URL_MESSAGE = 'must be an https:// URL (http:// only to a loopback address): the webhook URL is a secret and never crosses a network in clear';

/**
 * A chat webhook URL (see SECRET_URL): at most 2048 characters, no user info,
 * https unless to loopback. One expression is the check and the OpenAPI
 * pattern; the message says which rule a value broke.
 */
export function IsWebhookUrl(): PropertyDecorator {
  return applyDecorators(
    IsString({ message: 'must be a string' }),
    MaxLength(2048, { message: 'must be at most 2048 characters' }),
    NoUrlCredentials(),
    (target: object, propertyName: string | symbol) =>
      registerDecorator({
        name: 'isWebhookUrl',
        target: target.constructor,
        propertyName: String(propertyName),
        constraints: [SECRET_URL],
        options: { message: (args) => (typeof args.value === 'string' && HTTP_URL.test(args.value) ? WEBHOOK_URL_MESSAGE : HTTP_URL_MESSAGE) },
        validator: {
          // a URL with user info is reported by NoUrlCredentials alone
          validate: (value: unknown) => typeof value !== 'string' || SECRET_URL.test(value) || hasUserInfo(value),
        },
      }),
  );
}
