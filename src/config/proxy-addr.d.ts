// proxy-addr ships no types (Express' own `trust proxy` setting compiles its value with it).
declare module 'proxy-addr' {
  /** Compiles addresses, CIDR ranges and the names loopback/linklocal/uniquelocal; throws a TypeError on anything else. */
  export function compile(trusted: string | readonly string[]): (address: string, hop: number) => boolean;
}
