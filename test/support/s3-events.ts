/** The object fields of an S3 event record, with the key as S3 encodes it. */
export interface S3ObjectFields {
  key: string;
  size?: number;
  eTag?: string;
  versionId?: string;
  sequencer?: string;
}

export const BUCKET = 'docparse-bucket';

/** An S3 event record (event version 2.1) as S3 puts it in a notification. */
export function anS3EventRecord(
  object: S3ObjectFields,
  overrides: { eventName?: string; bucket?: string } = {},
): Record<string, unknown> {
  const bucket = overrides.bucket ?? BUCKET;
  return {
    eventVersion: '2.1',
    eventSource: 'aws:s3',
    awsRegion: 'eu-west-1',
    eventTime: '2025-03-04T05:06:07.000Z',
    eventName: overrides.eventName ?? 'ObjectCreated:Put',
    userIdentity: { principalId: 'AWS:AIDAEXAMPLE' },
    requestParameters: { sourceIPAddress: '203.0.113.7' },
    responseElements: {
      'x-amz-request-id': 'C3D13FE58DE4C810',
      'x-amz-id-2': 'FMyUVURIY8/IgAtTv8xRjskZQpcIZ9KG4V5Wp6S7S/JRWeUWerMUE5JgHvANOjpD',
    },
    s3: {
      s3SchemaVersion: '1.0',
      configurationId: 'IncomingObjects',
      bucket: {
        name: bucket,
        ownerIdentity: { principalId: 'A3NL1KOZZKExample' },
        arn: `arn:aws:s3:::${bucket}`,
      },
      object: {
        eTag: '0123456789abcdef0123456789abcdef',
        sequencer: '0A1B2C3D4E5F678901',
        ...object,
      },
    },
  };
}

/** The body of the SQS message S3 sends for `records`. */
export function anS3Notification(...records: Record<string, unknown>[]): string {
  return JSON.stringify({ Records: records });
}

/** The body of the message S3 sends once when the notification is configured. */
export function anS3TestEvent(): string {
  return JSON.stringify({
    Service: 'Amazon S3',
    Event: 's3:TestEvent',
    Time: '2025-03-04T05:06:07.000Z',
    Bucket: BUCKET,
    RequestId: '5582815E1AEA5ADF',
    HostId: '8cLeGAmw098X5cv4Zkwcmo8vvZa3eH3eKxsPzbB9wrR+YstdA6Knx4Ip8EXAMPLE',
  });
}
