import { PassThrough, Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { eventBodyBytes, parseMultipart } from '../../../functions/api/multipart.js';
import { BadRequestError, PayloadTooLargeError } from '../../../functions/core/domain/errors.js';

const CONTENT_TYPE = 'multipart/form-data; boundary=B';
const CLOSE = '--B--\r\n';

const field = (name: string, value: string): string =>
  `--B\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
const filePart = (name: string, content: string, filename = 'a.pdf'): string =>
  `--B\r\nContent-Disposition: form-data; name="${name}"; filename="${filename}"\r\nContent-Type: application/pdf\r\n\r\n${content}\r\n`;

/** The truncated body of the report: the file part never reaches its closing boundary. */
const TRUNCATED =
  '--B\r\nContent-Disposition: form-data; name="file"; filename="a.pdf"\r\nContent-Type: application/pdf\r\n\r\n%PDF-1.4 partial';

const parse = (body: string | Buffer | Readable, maxFileBytes = 1024 * 1024) =>
  parseMultipart(typeof body === 'string' ? Buffer.from(body) : body, CONTENT_TYPE, {
    maxFileBytes,
  });

async function failure(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected the parse to fail');
}

describe('parseMultipart', () => {
  it('reads the fields and the one file part', async () => {
    // Act
    const form = await parse(field('dpi', '150') + filePart('file', '%PDF-1.4 whole') + CLOSE);
    // Assert
    expect({ ...form.fields }).toEqual({ dpi: '150' });
    expect(form.file).toEqual({
      field: 'file',
      filename: 'a.pdf',
      mimetype: 'application/pdf',
      content: Buffer.from('%PDF-1.4 whole'),
    });
  });

  it('reads an API Gateway body sent base64-encoded', async () => {
    // Arrange
    const binary = Buffer.from([0x25, 0x50, 0x44, 0x46, 0x00, 0xff, 0x0d, 0x0a, 0x80]);
    const raw = Buffer.concat([
      Buffer.from('--B\r\nContent-Disposition: form-data; name="file"; filename="b.pdf"\r\n\r\n'),
      binary,
      Buffer.from(`\r\n${CLOSE}`),
    ]);
    // Act
    const form = await parse(eventBodyBytes(raw.toString('base64'), true));
    // Assert
    expect(form.file?.content).toEqual(binary);
  });

  it('takes the part "file" sent without a file name as the file', async () => {
    // Act
    const form = await parse(field('file', 'plain bytes') + CLOSE);
    // Assert
    expect(form.file).toMatchObject({ filename: null, content: Buffer.from('plain bytes') });
  });

  it('keeps odd field names as plain keys of a null-prototype map', async () => {
    // Arrange
    const names = ['__proto__[]', 'constructor[]', 'toString[]', 'hasOwnProperty[]', '__proto__'];
    // Act
    const form = await parse(names.map((n) => field(n, 'x')).join('') + CLOSE);
    // Assert
    expect(Object.getPrototypeOf(form.fields)).toBeNull();
    expect(Object.keys(form.fields).sort()).toEqual([...names].sort());
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('refuses a body that ends before its closing boundary with a 400 naming it', async () => {
    // Act
    const error = await failure(parse(TRUNCATED));
    // Assert
    expect(error).toBeInstanceOf(BadRequestError);
    expect(error.message).toMatch(
      /^malformed request body: the body ends before its closing boundary/,
    );
  });

  it('refuses a streamed body that ends inside the file part, without an unhandled error', async () => {
    // Arrange
    const source = new PassThrough();
    const parsing = parse(source);
    // Act
    source.write(TRUNCATED.slice(0, 60));
    source.end(TRUNCATED.slice(60));
    const error = await failure(parsing);
    await new Promise((resolve) => setTimeout(resolve, 20));
    // Assert
    expect(error.message).toMatch(/ends before its closing boundary/);
  });

  it('refuses a streamed body whose source fails', async () => {
    // Arrange
    const source = new PassThrough();
    const parsing = parse(source);
    source.write(TRUNCATED);
    // Act
    source.destroy(new Error('socket hang up'));
    const error = await failure(parsing);
    // Assert
    expect(error).toBeInstanceOf(BadRequestError);
    expect(error.message).toMatch(/the request body was interrupted/);
  });

  it.each([
    ['small', 'x'],
    ['large', 'x'.repeat(300_000)],
  ])('refuses three %s file parts as more than one file part', async (_, content) => {
    // Act
    const error = await failure(
      parse(filePart('file', content).repeat(3) + CLOSE, 10 * 1024 * 1024),
    );
    // Assert
    expect(error).toBeInstanceOf(BadRequestError);
    expect(error.message).toMatch(/more than one file part: send exactly one file/);
  });

  it('refuses a file part that is not named "file"', async () => {
    // Act
    const error = await failure(parse(filePart('document', 'x') + CLOSE));
    // Assert
    expect(error.message).toMatch(/the file part is named "document"/);
  });

  it.each([
    [
      'no Content-Disposition',
      '--B\r\nContent-Type: text/plain\r\n\r\nhello\r\n',
      /part 2 has no Content-Disposition header/,
    ],
    [
      'a Content-Disposition other than form-data',
      '--B\r\nContent-Disposition: attachment; name="a"\r\n\r\nhello\r\n',
      /part 2 has Content-Disposition "attachment; name="a""/,
    ],
  ])('refuses a part with %s', async (_, part, message) => {
    // Act
    const error = await failure(parse(field('dpi', '150') + part + filePart('file', 'x') + CLOSE));
    // Assert
    expect(error).toBeInstanceOf(BadRequestError);
    expect(error.message).toMatch(message);
  });

  it('refuses a field sent twice', async () => {
    // Act
    const error = await failure(parse(field('dpi', '150') + field('dpi', '300') + CLOSE));
    // Assert
    expect(error.message).toMatch(/the field "dpi" is sent more than once/);
  });

  it('refuses more fields than allowed', async () => {
    // Arrange
    const body = Array.from({ length: 4 }, (_, i) => field(`f${i}`, 'x')).join('') + CLOSE;
    // Act
    const error = await failure(
      parseMultipart(Buffer.from(body), CONTENT_TYPE, { maxFileBytes: 10, maxFields: 3 }),
    );
    // Assert
    expect(error.message).toMatch(/more than 3 form fields/);
  });

  it('refuses a field longer than allowed', async () => {
    // Act
    const error = await failure(
      parseMultipart(Buffer.from(field('schema', 'x'.repeat(100)) + CLOSE), CONTENT_TYPE, {
        maxFileBytes: 10,
        maxFieldBytes: 50,
      }),
    );
    // Assert
    expect(error.message).toMatch(/the field "schema" is longer than 50 bytes/);
  });

  it.each([
    [undefined, /expected Content-Type multipart\/form-data, got no Content-Type/],
    ['application/json', /expected Content-Type multipart\/form-data, got application\/json/],
    ['multipart/form-data', /the Content-Type multipart\/form-data has no boundary parameter/],
  ])('refuses the Content-Type %s with a 400 naming it', async (contentType, message) => {
    // Act
    const error = await failure(
      parseMultipart(Buffer.from(field('a', 'b') + CLOSE), contentType, { maxFileBytes: 10 }),
    );
    // Assert
    expect(error).toBeInstanceOf(BadRequestError);
    expect(error.message).toMatch(message);
  });

  it('refuses a body whose boundary does not match the Content-Type', async () => {
    // Act
    const error = await failure(
      parseMultipart(Buffer.from(field('a', 'b') + CLOSE), 'multipart/form-data; boundary=C', {
        maxFileBytes: 10,
      }),
    );
    // Assert
    expect(error.message).toMatch(/ends before its closing boundary/);
  });

  it('refuses a file one byte above the maximum with PayloadTooLargeError', async () => {
    // Act
    const error = await failure(parse(filePart('file', 'x'.repeat(257)) + CLOSE, 256));
    // Assert
    expect(error).toBeInstanceOf(PayloadTooLargeError);
    expect(error.message).toMatch(/exceeds the maximum upload size of 256 bytes/);
  });

  it('passes the fields before the file to onFileStart, which may lower the limit', async () => {
    // Arrange
    const seen: Record<string, string>[] = [];
    const body = field('policy', 'p') + filePart('file', 'x'.repeat(20)) + field('late', 'l');
    // Act
    const error = await failure(
      parseMultipart(Buffer.from(body + CLOSE), CONTENT_TYPE, {
        maxFileBytes: 100,
        onFileStart: (fields) => {
          seen.push({ ...fields });
          return 10;
        },
      }),
    );
    // Assert
    expect(seen).toEqual([{ policy: 'p' }]);
    expect(error.message).toMatch(/maximum upload size of 10 bytes/);
  });

  it('ends with the error onFileStart throws, and ignores fields after the file on request', async () => {
    // Arrange
    const body = filePart('file', 'abc') + field('late', 'l') + CLOSE;
    const refusal = new Error('bad signature');
    // Act
    const refused = await failure(
      parseMultipart(Buffer.from(body), CONTENT_TYPE, {
        maxFileBytes: 100,
        onFileStart: () => {
          throw refusal;
        },
      }),
    );
    const accepted = await parseMultipart(Buffer.from(body), CONTENT_TYPE, {
      maxFileBytes: 100,
      ignoreFieldsAfterFile: true,
    });
    // Assert
    expect(refused).toBe(refusal);
    expect({ ...accepted.fields }).toEqual({});
    expect(accepted.file?.content).toEqual(Buffer.from('abc'));
  });

  it('reads only the part named "file" as the file when fileParts is "named"', async () => {
    // Act
    const form = await parseMultipart(
      Buffer.from(filePart('key', 'uploads/x') + filePart('file', 'abc') + CLOSE),
      CONTENT_TYPE,
      { maxFileBytes: 100, fileParts: 'named' },
    );
    // Assert
    expect({ ...form.fields }).toEqual({ key: 'uploads/x' });
    expect(form.file?.content).toEqual(Buffer.from('abc'));
  });

  it('uses the given prefix and hint in its details', async () => {
    // Act
    const error = await failure(
      parseMultipart(Buffer.from(TRUNCATED), CONTENT_TYPE, {
        maxFileBytes: 100,
        prefix: 'malformed upload',
        hint: 'send the form',
      }),
    );
    // Assert
    expect(error.message).toMatch(/^malformed upload: .*; send the form$/);
  });

  it('reads a streamed body chunk by chunk', async () => {
    // Arrange
    const body = field('dpi', '72') + filePart('file', 'y'.repeat(100_000)) + CLOSE;
    const chunks = body.match(/[\s\S]{1,977}/g) ?? [];
    // Act
    const form = await parse(Readable.from(chunks.map((c) => Buffer.from(c))));
    // Assert
    expect(form.fields.dpi).toBe('72');
    expect(form.file?.content.length).toBe(100_000);
  });
});
