/**
 * Third-party credentials obtained through URL-mode elicitation live only in a `SecretVault`, bound
 * to the verified user subject they were obtained for. They are never returned to the MCP client,
 * never logged, and the client's MCP bearer is never sent to the third party.
 */

/** A third-party credential as the server keeps it. */
export interface StoredSecret {
  readonly tokenType: string;
  readonly accessToken: string;
  readonly refreshToken?: string;
  /** Milliseconds since the epoch. */
  readonly expiresAt?: number;
  readonly scope?: string;
  /** The issuer that granted it (for audit; not secret). */
  readonly issuer: string;
  /** The provider account it is for (the ID token's or userinfo's `sub`), when the provider said. */
  readonly providerSubject?: string;
}

/** Where third-party tokens are stored: keyed by (verified subject, provider). */
export interface SecretVault {
  put(subject: string, provider: string, secret: StoredSecret): Promise<void>;
  get(subject: string, provider: string): Promise<StoredSecret | null>;
  delete(subject: string, provider: string): Promise<void>;
}
