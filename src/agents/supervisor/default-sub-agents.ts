/** Seed 003's sub-agents, the default of SUPERVISOR_AGENTS. */
export const DEFAULT_SUB_AGENTS = [
  {
    name: 'rag_agent',
    description: '회사 정책, 프로젝트 문서 등 내부 지식 기반 검색',
    role: '당신은 내부 지식 기반 검색 전문가입니다.',
    tools: ['search_knowledge_base'],
  },
  {
    name: 'external_agent',
    description: '웹 검색, 위키백과, 날씨, 현재 날짜·시간 등 외부 정보',
    role: '당신은 외부 정보 검색 전문가입니다.',
    tools: ['web_search', 'search_wikipedia', 'get_weather', 'get_current_datetime'],
  },
  {
    name: 'internal_agent',
    description: '계산, 내부 파일 읽기 등 내부 데이터 처리',
    role: '당신은 내부 데이터 처리 전문가입니다.',
    tools: ['calculator', 'read_file'],
  },
];
