/** The conformance suite's generative-UI component: a card naming what the graph sent. */
const Card = (props: { title: string }) => <section className="card">{props.title}</section>;

export default { card: Card };
