"""The C emitter (emit.py): a planned graph becomes NAME.h, NAME.c and the runtime sources it calls; arrays.py,
c_text.py and names.py are the text it is made of, crt.py where the runtime is."""
