"""The offline ``heuristic:default`` model (``model``) and the deterministic rules it
submits from: for secrets (``secret_rules``) and for vulnerable dependencies
(``dependency_rules``). It implements ``thresher.llm``'s ``Model``; which agent runs on
it is chosen by ``thresher.agents.registry``."""
