import { parseDuration } from '../common/duration';
import { InvalidInputError } from '../common/errors';
import { MAX_ANNOTATIONS_BYTES } from '../common/validators';
import { type Json, mergePatch } from '../common/merge-patch';
import type { ProjectEntity, TargetSelector } from '../database/entities';
import { storedRollout } from '../rollout/rollout-spec.dto';
import type { UpdateProjectDto } from './project-patch.dto';

export const DEFAULT_TAG = 'latest';
export const DEFAULT_PATH = 'project.cue';
export const DEFAULT_INTERVAL_S = 600;

/** The spec fields a patch can change, as the entity stores them. */
export type ProjectSpec = Pick<
  ProjectEntity,
  'namespace' | 'sourceRepository' | 'sourceTag' | 'sourcePath' | 'serviceAccountName' | 'targetSelector' | 'rolloutGroups' | 'rolloutWaves' | 'rolloutOnFailure' | 'rolloutWindows' | 'intervalSeconds' | 'annotations' | 'cdeventsSink' | 'targetRemoval' | 'overwriteOwnership' | 'bootstrapRole'
>;

/** The DTO as the JSON it was sent as: absent fields gone, nulls kept. */
function asJson(dto: object): Json {
  return JSON.parse(JSON.stringify(dto)) as Json;
}

/**
 * The spec `p` has after the merge patch `dto` (RFC 7396). A removed field
 * takes its default; a label selector the patch left empty is dropped, since
 * an empty selector would select every cluster. Registry credentials are not
 * merged (they are never shown): the service replaces them whole.
 */
export function patchedSpec(p: ProjectEntity, dto: UpdateProjectDto): ProjectSpec {
  const { registryCredentials: _secret, cdeventsSinkHeader: _header, notificationWebhook: _webhook, ...rest } = asJson(dto) as Record<string, Json>;
  const current = {
    source: { repository: p.sourceRepository, tag: p.sourceTag, path: p.sourcePath },
    targets: p.targetSelector as Json,
    annotations: p.annotations,
  };
  const merged = mergePatch(current as unknown as Json, { source: rest.source ?? {}, targets: rest.targets === undefined ? {} : rest.targets, annotations: rest.annotations === undefined ? {} : rest.annotations }) as unknown as {
    source: { repository: string; tag?: string; path?: string };
    targets?: TargetSelector;
    annotations?: Record<string, string>;
  };
  const annotations = merged.annotations ?? {};
  // the patch alone was checked; the limit holds for what the merge makes
  if (Object.entries(annotations).reduce((n, [k, v]) => n + Buffer.byteLength(k) + Buffer.byteLength(v), 0) > MAX_ANNOTATIONS_BYTES) {
    throw new InvalidInputError([`annotations: keys and values together must be at most ${MAX_ANNOTATIONS_BYTES / 1024} KiB, as Kubernetes allows, after the merge`]);
  }
  const targets = { ...(merged.targets ?? {}) };
  if (targets.labelSelector && Object.keys(targets.labelSelector).length === 0 && !isEmptyObject(p.targetSelector.labelSelector)) delete targets.labelSelector;
  return {
    namespace: dto.namespace ?? p.namespace,
    sourceRepository: merged.source.repository,
    sourceTag: merged.source.tag ?? DEFAULT_TAG,
    sourcePath: merged.source.path ?? DEFAULT_PATH,
    serviceAccountName: dto.serviceAccountName === undefined ? p.serviceAccountName : (dto.serviceAccountName ?? p.name),
    targetSelector: targets,
    ...(dto.rollout === undefined ? { rolloutGroups: p.rolloutGroups, rolloutWaves: p.rolloutWaves, rolloutOnFailure: p.rolloutOnFailure, rolloutWindows: p.rolloutWindows } : storedRollout(dto.rollout)),
    intervalSeconds: dto.interval === undefined ? p.intervalSeconds : dto.interval === null ? DEFAULT_INTERVAL_S : parseDuration(dto.interval)!,
    annotations,
    cdeventsSink: dto.cdeventsSink === undefined ? p.cdeventsSink : dto.cdeventsSink,
    targetRemoval: dto.targetRemoval === undefined ? p.targetRemoval : (dto.targetRemoval ?? 'delete'),
    overwriteOwnership: dto.overwriteOwnership === undefined ? p.overwriteOwnership : (dto.overwriteOwnership ?? false),
    bootstrapRole: dto.bootstrap === undefined ? p.bootstrapRole : (dto.bootstrap?.serviceAccountRole ?? null),
  };
}

function isEmptyObject(v: object | undefined): boolean {
  return v !== undefined && Object.keys(v).length === 0;
}
