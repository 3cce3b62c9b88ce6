import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { reshapeDocument } from './document-shapes';
import { documentValidationRules } from './validation-keywords';

/** OpenAPI document at /api/docs-json and a browsable UI at /api/docs (both public). */
export function setupOpenApi(app: INestApplication): void {
  const undocumented = documentValidationRules();
  if (undocumented.length) throw new Error(`OpenAPI: validated properties without @ApiProperty: ${undocumented.join(', ')}`);
  const doc = SwaggerModule.createDocument(
    app,
    new DocumentBuilder()
      .setTitle('Flotilla hub')
      .setDescription('Fleet control plane: clusters, Projects and their Targets. Every route but health and metrics needs a bearer token.')
      .setVersion('v1')
      .addBearerAuth()
      .build(),
  );
  SwaggerModule.setup('api/docs', app, reshapeDocument(doc), { jsonDocumentUrl: 'api/docs-json' });
}
