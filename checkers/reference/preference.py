"""Preference optimisation: DPO and its loss variants, CPO/SimPO, ORPO, KTO, Bradley-Terry and the
KL-regularised optimal policy (contract §4, "Preference optimisation").

One module per job, each registering its functions when imported:

* :mod:`.dpo_losses` — the per-type DPO losses and the f-divergence score (pure tensor maths);
* :mod:`.dpo_pairs` — one DPO batch: input checks, weighted loss types, rewards, margins, accuracies;
* :mod:`.preference_weighting` — per-token inputs to sequence log-probs (LD-DPO, WPO weights);
* :mod:`.dpo` — ``dpo.loss``, ``dpo.gradient``, ``dpo.implicit_reward``;
* :mod:`.cpo` — ``cpo.loss``, ``simpo.loss``; :mod:`.orpo` — ``orpo.loss``; :mod:`.kto` — ``kto.loss``;
* :mod:`.bradley_terry` — ``preference.bradley_terry``, ``policy.optimal``.

Authorities: huggingface/trl v0.28.0 ``DPOTrainer.dpo_loss`` and ``get_batch_loss_metrics``
(``trl/trainer/dpo_trainer.py``), TRL main ``DPOTrainer._compute_loss`` for ``trl_version="head"``,
``trl/experimental/cpo/cpo_trainer.py::cpo_loss``, ``trl/experimental/orpo/orpo_trainer.py::
odds_ratio_loss``, ``trl/experimental/kto/kto_trainer.py::kto_loss``. Everything is a
re-implementation. Every public name stays importable from here.
"""

from __future__ import annotations

from .bradley_terry import bradley_terry, policy_optimal
from .cpo import CPO_LOSS_TYPES, CPO_LOSSES, alphapo_reward, cpo_loss, simpo_loss
from .dpo import (DPO_LOSS_OUTPUTS, DPO_LOSS_PARAMS, DPO_OUTPUTS, DPO_PARAMS, dpo_gradient, dpo_implicit_reward,
                  dpo_loss)
from .dpo_losses import (ALPHA_LIMIT_TOL, DPO_LOSSES, DPO_VERSIONS, EXO_DEFAULT_EPSILON, F_DIVERGENCES, DPOTerms,
                         f_divergence_score)
from .kto import KTO_LOSS_TYPES, kto_loss
from .orpo import LOG1MEXP, log1mexp_naive, log1mexp_stable, orpo_loss

__all__ = ["ALPHA_LIMIT_TOL", "CPO_LOSSES", "CPO_LOSS_TYPES", "DPOTerms", "DPO_LOSSES", "DPO_LOSS_OUTPUTS",
           "DPO_LOSS_PARAMS", "DPO_OUTPUTS", "DPO_PARAMS", "DPO_VERSIONS", "EXO_DEFAULT_EPSILON", "F_DIVERGENCES",
           "KTO_LOSS_TYPES", "LOG1MEXP", "alphapo_reward", "bradley_terry", "cpo_loss", "dpo_gradient",
           "dpo_implicit_reward", "dpo_loss", "f_divergence_score", "kto_loss", "log1mexp_naive", "log1mexp_stable",
           "orpo_loss", "policy_optimal", "simpo_loss"]
