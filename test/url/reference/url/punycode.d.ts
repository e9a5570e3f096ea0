// The `punycode` package (userland, not Node's deprecated built-in) ships no type declarations.
declare module 'punycode/punycode.js' {
  const punycode: {
    decode(input: string): string;
    encode(input: string): string;
    toASCII(domain: string): string;
    toUnicode(domain: string): string;
    readonly version: string;
  };
  export default punycode;
}
