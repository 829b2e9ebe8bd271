/** Type declarations for `heic-decode` 2.x, which ships none. */
declare module 'heic-decode' {
  interface HeicInput {
    buffer: ArrayBufferLike | ArrayLike<number>;
  }

  interface DecodedHeic {
    width: number;
    height: number;
    /** RGBA, 8 bits per channel, row-major. */
    data: Uint8ClampedArray;
  }

  interface HeicImageHandle {
    width: number;
    height: number;
    decode(): Promise<DecodedHeic>;
  }

  interface HeicImageList extends Array<HeicImageHandle> {
    /** Frees the decoder and every image handle. */
    dispose(): void;
  }

  interface HeicDecode {
    (input: HeicInput): Promise<DecodedHeic>;
    /** Parses the container and lists its images without decoding any pixels. */
    all(input: HeicInput): Promise<HeicImageList>;
  }

  const decode: HeicDecode;
  export = decode;
}
