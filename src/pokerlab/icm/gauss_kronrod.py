"""The Gauss-Kronrod 7-15 rule (QUADPACK qk15) of the ICM race integrals."""

from __future__ import annotations

import numpy as np

# Gauss-Kronrod 7-15 on [-1, 1] (QUADPACK qk15): the Kronrod nodes xgk[0..7] (xgk[7] = 0), their weights,
# and the Gauss weights of the 7-point rule whose nodes are xgk[1], xgk[3], xgk[5], xgk[7].
GK_NODES = np.array(
    [
        0.991455371120812639206854697526329,
        0.949107912342758524526189684047851,
        0.864864423359769072789712788640926,
        0.741531185599394439863864773280788,
        0.586087235467691130294144845693013,
        0.405845151377397166906606412076961,
        0.207784955007898467600689403773245,
        0.000000000000000000000000000000000,
    ]
)
GK_WEIGHTS = np.array(
    [
        0.022935322010529224963732008058970,
        0.063092092629978553290700663189204,
        0.104790010322250183839876322541518,
        0.140653259715525918745189590510238,
        0.169004726639267902826583426598550,
        0.190350578064785409913256402421014,
        0.204432940075298892414161999234649,
        0.209482141084727828012999174891714,
    ]
)
GAUSS7_WEIGHTS = np.array(
    [
        0.129484966168869693270611432679082,
        0.279705391489276667901467771423780,
        0.381830050505118944950369775488975,
        0.417959183673469387755102040816327,
    ]
)


def gk15_rule() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The 15 Kronrod nodes on [-1, 1] with Kronrod weights and embedded Gauss weights (0 off the Gauss nodes)."""
    nodes = np.concatenate([-GK_NODES[:7], [0.0], GK_NODES[6::-1]])
    kronrod = np.concatenate([GK_WEIGHTS[:7], [GK_WEIGHTS[7]], GK_WEIGHTS[6::-1]])
    gauss = np.zeros(15)
    gauss_half = np.array([0.0, GAUSS7_WEIGHTS[0], 0.0, GAUSS7_WEIGHTS[1], 0.0, GAUSS7_WEIGHTS[2], 0.0])
    gauss[:7] = gauss_half
    gauss[7] = GAUSS7_WEIGHTS[3]
    gauss[8:] = gauss_half[::-1]
    return nodes, kronrod, gauss
