import PuckCore
