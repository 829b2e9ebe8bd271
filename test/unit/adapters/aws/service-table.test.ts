import { describe, expect, it } from 'vitest';
import {
  PARTITION_KEY,
  SORT_KEY,
  TTL_ATTRIBUTE,
  createTableInput,
  serviceTable,
} from '../../../../functions/adapters/aws/service-table.js';

describe('serviceTable', () => {
  it('defines string pk/sk keys, on-demand billing and the expiresAt TTL attribute', () => {
    // Arrange
    const tableName = 'docparse';
    // Act
    const definition = serviceTable(tableName);
    // Assert
    expect(definition).toEqual({
      tableName: 'docparse',
      partitionKey: { name: 'pk', type: 'S' },
      sortKey: { name: 'sk', type: 'S' },
      billingMode: 'PAY_PER_REQUEST',
      timeToLiveAttribute: 'expiresAt',
    });
    expect([PARTITION_KEY, SORT_KEY, TTL_ATTRIBUTE]).toEqual(['pk', 'sk', 'expiresAt']);
  });

  it('translates into a CreateTable request', () => {
    // Arrange
    const definition = serviceTable('docparse');
    // Act
    const input = createTableInput(definition);
    // Assert
    expect(input).toEqual({
      TableName: 'docparse',
      AttributeDefinitions: [
        { AttributeName: 'pk', AttributeType: 'S' },
        { AttributeName: 'sk', AttributeType: 'S' },
      ],
      KeySchema: [
        { AttributeName: 'pk', KeyType: 'HASH' },
        { AttributeName: 'sk', KeyType: 'RANGE' },
      ],
      BillingMode: 'PAY_PER_REQUEST',
    });
  });
});
