/*
 * tcl_util.h - the few Tcl helpers the master's C files share: a string
 * object (NULL as ""), a dict entry under a C string key (put and get),
 * and evaluating a command given as words.
 */
#ifndef IPS2_TCL_UTIL_H
#define IPS2_TCL_UTIL_H

#include <tcl.h>

static inline Tcl_Obj *Ips2Str(const char *s)
{
    return Tcl_NewStringObj(s ? s : "", -1);
}

static inline void Ips2Put(Tcl_Obj *dict, const char *key, Tcl_Obj *value)
{
    Tcl_DictObjPut(NULL, dict, Tcl_NewStringObj(key, -1), value);
}

/* The value under key in dict; NULL if there is none or dict is no dict. */
static inline Tcl_Obj *Ips2DictValue(Tcl_Obj *dict, const char *key)
{
    Tcl_Obj *k = Tcl_NewStringObj(key, -1), *v = NULL;

    Tcl_IncrRefCount(k);
    if (Tcl_DictObjGet(NULL, dict, k, &v) != TCL_OK)
        v = NULL;
    Tcl_DecrRefCount(k);
    return v;
}

/* Evaluates the command words[0..n) at global level, holding a reference
 * to each word meanwhile (new objects among them are freed after).  A
 * standard Tcl result. */
static inline int Ips2EvalWords(Tcl_Interp *interp, int n, Tcl_Obj *const *words)
{
    for (int i = 0; i < n; i++)
        Tcl_IncrRefCount(words[i]);
    int rc = Tcl_EvalObjv(interp, n, words, TCL_EVAL_GLOBAL);
    for (int i = 0; i < n; i++)
        Tcl_DecrRefCount(words[i]);
    return rc;
}

#endif /* IPS2_TCL_UTIL_H */
