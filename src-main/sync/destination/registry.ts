// Destinations are registered, not branched on (rclone's backend/all, VS Code's
// registerFileSystemProvider): each backend is a folder under destination/ whose backend.ts
// describes it once — the scheme its text starts with, how that text is parsed, what its
// destinations are called, where this machine keeps their engine state, the siblings beside a
// dataset, how one is opened, and which optional members (capabilities) its destinations
// offer. all.ts lists them; open.ts and parse-destination.ts answer the engine through them, so
// nothing above this file asks which kind a destination is.
import { DestinationError, type BucketCredentials, type Destination, type DestinationSpec, type SiblingSuffix } from './destination';

/**
 * The optional members of Destination a backend may offer (destination.ts says what each is
 * for), plus `freeSpace` (freeSpace() answers a number) and `localRoot` (the dataset is local
 * files). test/destination/contract.ts tests each where it is declared and reports it skipped
 * where it is not, and checks that a destination has exactly the members its backend declares.
 */
export const CAPABILITIES = ['peekText', 'extendAtomic', 'warmExtensions', 'openUploadNow', 'foundEmpty', 'stats', 'cleanUp', 'freeSpace', 'localRoot', 'sharedAcrossMachines'] as const;
export type Capability = (typeof CAPABILITIES)[number];

/** How a destination's text is read: what the text leaves out comes from here, then from the environment. */
export interface ParseOptions {
  /** A store's endpoint (--s3-endpoint, or the app's setting); wins over the environment. */
  endpoint?: string;
  region?: string;
  /** Path-style addressing on request (some stores have no virtual-hosted names). */
  forcePathStyle?: boolean;
  env?: NodeJS.ProcessEnv;
  /** The dataset a consents text is read for: a backend may take what the text leaves out from it (a bucket's endpoint). */
  near?: DestinationSpec;
}

export interface OpenOptions {
  /** Held in memory only (the app reads them from the keychain); absent: the store's default chain. */
  credentials?: BucketCredentials;
  /**
   * Opens the destination as the consents of `dataset`: it must never be the dataset or inside it
   * (consents hold real names), which the backend of the consents checks for datasets of its own
   * kind and refuses with DestinationError 'config'. `text`: how the user named it, for that message.
   */
  consentsOf?: { dataset: DestinationSpec; text?: string };
}

export interface DestinationBackend<S extends DestinationSpec = DestinationSpec> {
  /** The `kind` of its specs and destinations. */
  readonly kind: S['kind'];
  /** The scheme its text starts with (`s3` for `s3://…`); absent: it takes every text no scheme claims (a folder path). */
  readonly scheme?: string;
  /** How messages name its text when asking for one ("a folder", "s3://BUCKET/PREFIX"). */
  readonly example: string;
  /** For tests only: never offered in messages, the CLI's help or the app. */
  readonly testOnly?: boolean;
  /** The optional members its destinations offer (see CAPABILITIES). */
  readonly capabilities: readonly Capability[];
  /** The spec a text names (the registry has checked it is not empty); DestinationError 'config' when it names nothing usable. */
  parse(text: string, options: ParseOptions): S;
  /** What the user sees (Destination.label of what open() gives). */
  label(spec: S): string;
  /** Where this machine keeps the engine's state for it (Destination.stateDir of what open() gives). */
  stateHome(spec: S, env?: NodeJS.ProcessEnv): string;
  /** The destination beside it with `suffix` added to its name, never inside it (`DEST.consents`, `PREFIX.withdrawn/`). */
  sibling(spec: S, suffix: SiblingSuffix): S;
  /** Opening touches nothing (prepare() does); throws DestinationError 'config' for a spec it cannot serve. */
  open(spec: S, options: OpenOptions): Destination;
}

/** A backend of any one kind of spec. */
export type AnyDestinationBackend = { [K in DestinationSpec['kind']]: DestinationBackend<Extract<DestinationSpec, { kind: K }>> }[DestinationSpec['kind']];

/** The backends by kind and scheme; one of them may take texts without a scheme. */
export class DestinationRegistry {
  private readonly kinds = new Map<string, DestinationBackend>();
  private readonly schemes = new Map<string, DestinationBackend>();
  private fallback: DestinationBackend | undefined;

  constructor(backends: readonly AnyDestinationBackend[] = []) {
    for (const backend of backends) this.register(backend);
  }

  register(backend: AnyDestinationBackend): void {
    // Stored without its spec type: specs reach it only through backend(), which picks it by their kind.
    const stored = backend as unknown as DestinationBackend;
    if (this.kinds.has(backend.kind)) throw new Error(`A destination backend of kind ${backend.kind} is already registered.`);
    if (backend.scheme === undefined) {
      if (this.fallback) throw new Error(`Both ${this.fallback.kind} and ${backend.kind} claim texts without a scheme.`);
      this.fallback = stored;
    } else {
      const scheme = backend.scheme.toLowerCase();
      if (this.schemes.has(scheme)) throw new Error(`The scheme ${scheme}:// is already registered.`);
      this.schemes.set(scheme, stored);
    }
    this.kinds.set(backend.kind, stored);
  }

  /** Every backend, in the order registered. */
  all(): DestinationBackend[] {
    return [...this.kinds.values()];
  }

  /** The backend of a spec or destination kind. */
  backend(kind: string): DestinationBackend {
    const backend = this.kinds.get(kind);
    if (!backend) throw new DestinationError('config', `No destination backend serves "${kind}".`);
    return backend;
  }

  /** The backend a text names by its scheme (any case), else the one that takes texts without a scheme. */
  forText(text: string): DestinationBackend {
    const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//.exec(text)?.[1]?.toLowerCase();
    const backend = (scheme !== undefined ? this.schemes.get(scheme) : undefined) ?? this.fallback;
    if (!backend) throw new DestinationError('config', `No destination backend takes ${JSON.stringify(text)}.`);
    return backend;
  }

  /** Whether the text names a destination by a registered scheme (never a local path). */
  hasScheme(text: string): boolean {
    return this.forText(text) !== this.fallback;
  }

  parse(text: string, options: ParseOptions = {}): DestinationSpec {
    if (text.trim() === '') {
      const offered = this.all().filter((b) => !b.testOnly).map((b) => b.example);
      throw new DestinationError('config', `The destination is empty: give ${offered.join(' or ')}.`);
    }
    return this.forText(text).parse(text, options);
  }

  label(spec: DestinationSpec): string {
    return this.backend(spec.kind).label(spec);
  }

  stateHome(spec: DestinationSpec, env?: NodeJS.ProcessEnv): string {
    return this.backend(spec.kind).stateHome(spec, env);
  }

  sibling(spec: DestinationSpec, suffix: SiblingSuffix): DestinationSpec {
    return this.backend(spec.kind).sibling(spec, suffix);
  }

  open(spec: DestinationSpec, options: OpenOptions = {}): Destination {
    return this.backend(spec.kind).open(spec, options);
  }

  /**
   * The consents destination of `dataset` (docs/contracts.md §1): the text given (`--consents-dir`,
   * read beside the dataset: a bucket's endpoint carries over), else its `.consents` sibling;
   * never the dataset or inside it (refused by the consents' backend, DestinationError 'config').
   */
  openConsents(dataset: DestinationSpec, text: string | undefined, options: ParseOptions & OpenOptions = {}): Destination {
    const spec = text === undefined ? this.sibling(dataset, '.consents') : this.parse(text, { ...options, near: dataset });
    return this.open(spec, { credentials: options.credentials, consentsOf: { dataset, ...(text !== undefined ? { text } : {}) } });
  }
}
