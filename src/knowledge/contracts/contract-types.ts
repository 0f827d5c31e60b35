import { DomainException } from '../../core/errors';

/**
 * One article of a contract: Korean (조), e.g. `제10조 (계약의 해지)` or the sub-article `제10조의2 (해지의 효과)`, or
 * English, e.g. `Article 10 – Termination`, `Section 10. Termination`, `10. Termination`.
 */
export interface Article {
  /** Canonical number: '제10조' or '제3조의2'; 'Article 10', 'Section 10', 'Clause 10'. Unique within a contract. */
  number: string;
  /** The main article number: 10 for '제10조', 3 for '제3조의2'. */
  index: number;
  /** 2 for '제3조의2'; null for an ordinary article. */
  sub_index: number | null;
  /** Title without brackets ('계약의 해지'); '' when the heading has none. */
  title: string;
  /**
   * Numbered clauses (항) with their markers kept ('① 각 당사자는 …'). Items under a clause ('1. …', '가. …') stay
   * inside that clause's text. A body without numbered clauses is one clause; an empty body gives [].
   */
  clauses: string[];
  /** The whole article: its heading (without markdown `#`/`**`) followed by the body, as in the document. */
  text: string;
}

/** One exhibit appended to a contract, e.g. `별지 1 (용역 범위)`, an unnumbered `【별지】`, `Schedule 2`, `Exhibit A`, `Annex II`. */
export interface Exhibit {
  /**
   * Canonical number: '별지 1'; 'Schedule 1', 'Exhibit A', 'Annex II' (the document's label; `index` counts letters
   * and Roman numerals from 1). Unnumbered exhibits are numbered in document order.
   */
  number: string;
  index: number;
  title: string;
  /** Everything after the exhibit heading, up to the next article or exhibit heading. */
  content: string;
}

/** An article as stored and returned (API, tools, agent state): the parsed `Article` and the contract it is in. */
export type ContractArticle = Article & { contract_id: string };

/** A search hit: the article and its fused rank score. */
export type ScoredArticle = ContractArticle & { score: number };

/** An article named by a search hit, with a short snippet of its text (what a search tool reports). */
export type ArticleHit = Pick<Article, 'number' | 'index' | 'title'> & { snippet: string };

export type ContractKind = 'user' | 'standard';

/** A stored contract with its articles and exhibits, in document order. */
export interface ContractView {
  contract_id: string;
  title: string;
  kind: ContractKind;
  articles: ContractArticle[];
  exhibits: Exhibit[];
}

export interface ContractSummary {
  contract_id: string;
  title: string;
  kind: ContractKind;
  /** How many articles it has. */
  articles: number;
}

export interface ParsedContract {
  /** Text before the first article: title, parties, recitals. */
  preamble: string;
  /** Articles in document order (not sorted, even if the document numbers them out of order). */
  articles: Article[];
  /** Exhibits in document order. */
  exhibits: Exhibit[];
  /**
   * Text after the articles that belongs to none of them: the signature block, dates, parties' seals. It starts at a
   * horizontal rule (`---`), a non-article markdown heading or a date-only line ('2025년 1월 1일') that follows an
   * article. '' when there is none.
   */
  closing: string;
}

/** The document could not be read as a contract; `reason` says what was expected. Maps to HTTP 422. */
export class ContractParseError extends DomainException {
  constructor(
    readonly reason: string,
    /** 1-based line of the offending heading, when there is one. */
    readonly line?: number,
  ) {
    super('CONTRACT_PARSE_ERROR', `cannot parse contract: ${reason}`, 422, line === undefined ? { reason } : { reason, line });
  }
}
