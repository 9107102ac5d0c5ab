package io.linerate.flink.serializers;

import org.apache.flink.api.common.typeinfo.TypeInformation;

/** Common type information of the linerate structures: atomic, not a key type, one field. */
public abstract class ImageTypeInfo<T> extends TypeInformation<T> {

    private static final long serialVersionUID = 1L;

    private final Class<T> type;

    protected ImageTypeInfo(Class<T> type) {
        this.type = type;
    }

    @Override
    public final boolean isBasicType() {
        return false;
    }

    @Override
    public final boolean isTupleType() {
        return false;
    }

    @Override
    public final int getArity() {
        return 1;
    }

    @Override
    public final int getTotalFields() {
        return 1;
    }

    @Override
    public final Class<T> getTypeClass() {
        return type;
    }

    @Override
    public final boolean isKeyType() {
        return false;
    }

    @Override
    public String toString() {
        return getClass().getSimpleName();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ImageTypeInfo<?> other && other.canEqual(this) && other.type == type;
    }

    @Override
    public int hashCode() {
        return type.hashCode();
    }

    @Override
    public boolean canEqual(Object o) {
        return o != null && o.getClass() == getClass();
    }
}
