import { Injectable } from '@nestjs/common';
import { DataSource, In, Not, type Repository } from 'typeorm';
import { CredentialEntity } from '../database/entities';

@Injectable()
export class CredentialsRepository {
  private readonly repo: Repository<CredentialEntity>;

  constructor(ds: DataSource) {
    this.repo = ds.getRepository(CredentialEntity);
  }

  insert(row: Pick<CredentialEntity, 'kind' | 'keyId' | 'envelope' | 'fingerprint'>): Promise<CredentialEntity> {
    return this.repo.save(this.repo.create(row));
  }

  findById(id: string): Promise<CredentialEntity | null> {
    return this.repo.findOneBy({ id });
  }

  findByIds(ids: string[]): Promise<CredentialEntity[]> {
    return ids.length ? this.repo.findBy({ id: In(ids) }) : Promise.resolve([]);
  }

  async update(id: string, row: Pick<CredentialEntity, 'kind' | 'keyId' | 'envelope' | 'fingerprint'>): Promise<void> {
    await this.repo.update({ id }, row);
  }

  /** Re-seals one row only if it still holds the envelope we read (a concurrent rotation or edit wins). */
  async reseal(id: string, expectedEnvelope: string, keyId: string, envelope: string): Promise<boolean> {
    const res = await this.repo.update({ id, envelope: expectedEnvelope }, { keyId, envelope });
    return (res.affected ?? 0) > 0;
  }

  sealedWithOtherKey(keyId: string, limit: number): Promise<CredentialEntity[]> {
    return this.repo.find({ where: { keyId: Not(keyId) }, order: { id: 'ASC' }, take: limit });
  }

  async delete(id: string): Promise<void> {
    await this.repo.delete({ id });
  }
}
