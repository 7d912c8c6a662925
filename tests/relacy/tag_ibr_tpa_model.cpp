// Relacy model of TagIBR-TPA: tag_ibr_model.cpp's list model run on tag_ibr_tpa. Its
// context-bound search takes about 45 s, so it runs in `make torture` (smr_relacy_long_model).
#define SMR_MODEL_TPA 1
#include "tag_ibr_model.cpp"
