export const PROPOSAL_STATUSES = ['pending', 'approved', 'rejected'] as const;
export type ProposalStatus = (typeof PROPOSAL_STATUSES)[number];

/** A change as the proposer sends it; paths are already normalized page paths. */
export interface ChangeInput {
  path: string;
  content?: string;
  delete?: boolean;
  base_hash?: string | null;
}

export interface ProposalInput {
  title: string;
  rationale: string;
  changes: ChangeInput[];
}

/** A stored change: the proposed blob (absent for a delete) and the version it was written against. */
export interface ProposalChange {
  path: string;
  delete?: true;
  /** Blob id of the proposed content, kept in the proposal's own tree. */
  hash?: string;
  /**
   * The page version the change is based on: the caller's base_hash, else the page's hash
   * when the proposal was made (null: the page did not exist). Approval requires it still.
   */
  base_hash: string | null;
}

/** Who did something, as the commit trailers name them. */
export interface Actor {
  name: string;
  agent?: string;
  actor?: string;
  credential?: string;
}

export interface ProposalRecord {
  id: string;
  title: string;
  rationale: string;
  status: ProposalStatus;
  created_at: string;
  created_by: Actor;
  /** HEAD of main when the proposal was made. */
  base_commit: string;
  changes: ProposalChange[];
  decided_at?: string;
  decided_by?: Actor;
  reason?: string;
  /** The commit on main that applied it (null when every change was already in place). */
  commit?: string | null;
}
