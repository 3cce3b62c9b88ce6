import { applyDecorators } from '@nestjs/common';
import { ApiBadRequestResponse, ApiConflictResponse, ApiForbiddenResponse, ApiNotFoundResponse, ApiProperty, ApiPropertyOptional, ApiUnauthorizedResponse } from '@nestjs/swagger';

/** The body of every error response (see HttpErrorFilter). */
export class ErrorDto {
  @ApiProperty({ example: 400 }) statusCode!: number;
  @ApiProperty({ example: 'InvalidInput' }) error!: string;
  @ApiProperty() message!: string;
  @ApiPropertyOptional({ type: [String], description: 'every validation problem as `path: message`', example: ['name: required'] }) problems?: string[];
  @ApiPropertyOptional({ description: 'also in the X-Request-Id header and the log line of the request' }) requestId?: string;
}

/** The error answers every API route may give. */
export function ApiErrors(): ClassDecorator {
  return applyDecorators(
    ApiBadRequestResponse({ type: ErrorDto, description: 'invalid input; every problem listed' }),
    ApiUnauthorizedResponse({ type: ErrorDto, description: 'missing, unknown or revoked token' }),
    ApiForbiddenResponse({ type: ErrorDto, description: "the token's role is too low" }),
    ApiNotFoundResponse({ type: ErrorDto }),
    ApiConflictResponse({ type: ErrorDto, description: 'name taken, or the object is in a state that forbids this' }),
  );
}
