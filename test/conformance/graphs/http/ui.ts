import { createElement } from 'react';

/** The conformance suite's generative-UI component: a card naming what the graph sent (createElement: no JSX to compile here). */
const Card = (props: { title: string }) => createElement('section', { className: 'card' }, props.title);

export default { card: Card };
